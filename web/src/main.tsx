/** Mounts the app, starts it with the token, and registers the service worker (the installable shell). */
import { render } from 'preact';
import { takeToken } from './api.js';
import { App } from './components/App.js';
import { boot } from './state.js';
import './theme.css';

// The visible height, so the composer stays above an on-screen keyboard where the browser does not
// resize the page (iOS); not while the person pinch-zooms.
const vv = window.visualViewport;
const fit = () => {
  if (!vv || vv.scale > 1.01) return;
  document.documentElement.style.setProperty('--app-height', `${Math.round(vv.height)}px`);
  if (window.scrollY) window.scrollTo(0, 0);
};
vv?.addEventListener('resize', fit);
fit();

render(<App />, document.getElementById('app')!);
void boot(takeToken());

if ('serviceWorker' in navigator && window.isSecureContext) {
  addEventListener('load', () => void navigator.serviceWorker.register('/sw.js').catch(() => undefined));
}
