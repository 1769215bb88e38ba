/**
 * Captures of the TUI's pickers and panels that replace, or sit on, the input box: the rewind
 * menu, /config, the prompt-history search, the @-mention list and the /btw side answer.
 */
import { bootIdle, enterSendsAsTyped, FOOTER } from './tui-scenario-helpers.js';
import type { Scenario, ShotContext } from './tui-shot.js';

async function afterOneTurn(s: ShotContext, tag: string): Promise<void> {
  await bootIdle(s, FOOTER.manual);
  await s.send(`hello tag:${tag}`);
  await s.waitFor(`ok tag:${tag}`);
  await s.settle(1000);
}

const MANUAL = { args: ['--permission-mode', 'manual'] };

export const PANEL_SCENARIOS: Scenario[] = [
  {
    id: 'rewind-menu',
    setup: MANUAL,
    async run(s) {
      await afterOneTurn(s, 'rewind');
      await s.keys('Escape');
      await s.settle(150);
      await s.keys('Escape');
      await s.waitFor('Rewind');
      await s.settle(500);
      await s.shot(
        'rewind-menu',
        'esc-esc-after-a-turn',
        'menu',
        'Esc Esc after a turn opens the rewind picker; Enter restores to the highlighted point',
      );
    },
  },
  {
    id: 'config-panel',
    setup: MANUAL,
    async run(s) {
      await bootIdle(s, FOOTER.manual);
      await s.send('/config');
      await s.waitFor('to navigate');
      await s.settle(500);
      await s.shot(
        'config-panel',
        'slash-config-entered',
        'menu',
        '/config + Enter opens the settings panel; Enter/Space change the highlighted setting',
      );
    },
  },
  {
    id: 'history-search',
    setup: MANUAL,
    async run(s) {
      await afterOneTurn(s, 'history');
      await s.keys('C-r');
      await s.waitFor('Filter history');
      await s.settle(500);
      await s.shot(
        'history-search',
        'ctrl-r-after-a-turn',
        'menu',
        'ctrl+r opens the prompt-history search; Enter uses the highlighted prompt',
      );
    },
  },
  {
    id: 'mention-list',
    setup: MANUAL,
    async run(s) {
      await bootIdle(s, FOOTER.manual);
      await s.type('look at @');
      await s.waitFor('(agent)');
      await s.settle(500);
      await s.shot(
        'mention-list',
        'typed-at-sign-into-idle-box',
        'ready',
        '"@" typed into the idle box opens the mention list, which does not take Enter: the text is sent as typed',
        enterSendsAsTyped(s, 'look at @'),
      );
    },
  },
  {
    id: 'side-question',
    setup: MANUAL,
    async run(s) {
      await afterOneTurn(s, 'btw');
      await s.send('/btw what is up');
      await s.waitFor('Esc to close');
      await s.settle(500);
      await s.shot(
        'side-question',
        'slash-btw-answered',
        'not-ready',
        '/btw shows its answer in a panel that replaces the input box; letter keys act on the panel (c ' +
          'copies, f forks)',
      );
    },
  },
];
