/** The web channel's name: the page's conversations are `web:<id>`. */
export const WEB = 'web';
