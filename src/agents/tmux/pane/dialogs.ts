/**
 * First-run dialogs the TUI can show before its input box, answered by reading them: each is
 * recognised by its text and the wanted option is chosen by its label, never by position or a
 * blind Enter (2.1.332's trust and bypass dialogs highlight "No, exit" first; the order changes
 * between versions). Nothing is accepted that the configuration did not ask for.
 */
import path from 'node:path';
import { type MenuOption, readMenu, type SelectOutcome, selectOption } from '../menus/menus.js';
import type { Pane } from './pane.js';

export type DialogKind = 'trust' | 'add-dir' | 'api-key' | 'bypass';

export interface DialogPolicy {
  /** The API key the configuration gives the agent, if any. */
  apiKey: string | undefined;
  /** The configuration asks for bypassPermissions mode. */
  bypass: boolean;
  /** Directories Rudder passed with --add-dir (where it saves long messages). */
  addDirs: string[];
  /** The agent's HOME, which the TUI shows as `~`. */
  home: string | undefined;
}

export type DialogAnswer =
  | { kind: DialogKind; outcome: SelectOutcome }
  /** Recognised, but the configuration does not allow accepting it. */
  | { kind: DialogKind; refused: string };

const ADD_DIR_TEXT = 'Adding a new directory';
const TRUST_TEXT = ['Quick safety check', 'Do you trust the files in this folder', 'trust this folder'];
const API_KEY_TEXT = 'Detected a custom API key';
const BYPASS_TEXT = 'Bypass Permissions mode';

export function identifyDialog(text: string): DialogKind | undefined {
  if (!readMenu(text)) return undefined;
  if (text.includes(API_KEY_TEXT)) return 'api-key';
  if (text.includes(BYPASS_TEXT)) return 'bypass';
  if (text.includes(ADD_DIR_TEXT)) return 'add-dir';
  if (TRUST_TEXT.some((t) => text.includes(t))) return 'trust';
  return undefined;
}

/** The key the dialog shows is `sk-ant-...<tail>`: it is the configured one when the tail matches. */
function shownKeyIsConfigured(text: string, apiKey: string | undefined): boolean {
  if (!apiKey) return false;
  const shown = /ANTHROPIC_API_KEY:\s*(\S+)/.exec(text)?.[1];
  if (!shown) return false;
  const tail = shown.includes('...') ? shown.slice(shown.lastIndexOf('...') + 3) : shown;
  return tail.length >= 4 && apiKey.endsWith(tail);
}

/**
 * The directory the dialog names is on the next non-blank line after its heading (under HOME it is shown as `~/...`).
 */
function shownDirIsOurs(text: string, dirs: string[], home: string | undefined): boolean {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const at = lines.findIndex((l) => l.startsWith(ADD_DIR_TEXT));
  const shown = at >= 0 ? lines[at + 1] : undefined;
  if (!shown) return false;
  const full = home && shown.startsWith('~/') ? path.join(home, shown.slice(2)) : shown;
  return dirs.some((d) => path.resolve(d) === path.resolve(full));
}

const label = (re: RegExp) => (o: MenuOption) => re.test(o.label);

export async function answerDialog(pane: Pane, text: string, policy: DialogPolicy): Promise<DialogAnswer | undefined> {
  const kind = identifyDialog(text);
  if (!kind) return undefined;
  switch (kind) {
    case 'trust':
      // The operator chose this working directory in the configuration: trusting it is asked for.
      return { kind, outcome: await selectOption(pane, { match: label(/^yes\b.*(trust|proceed)/i) }) };
    case 'add-dir':
      if (!shownDirIsOurs(text, policy.addDirs, policy.home))
        return { kind, refused: 'The CLI asks to add a directory Rudder did not pass.' };
      return { kind, outcome: await selectOption(pane, { match: label(/^yes, add it/i) }) };
    case 'api-key':
      if (!shownKeyIsConfigured(text, policy.apiKey))
        return { kind, refused: 'The CLI asks to use an API key that is not the one in the configuration.' };
      return { kind, outcome: await selectOption(pane, { match: label(/^yes\b/i) }) };
    case 'bypass':
      if (!policy.bypass)
        return {
          kind,
          refused: 'The CLI shows the bypass-permissions warning, but agent.permissionMode is not bypassPermissions.',
        };
      return { kind, outcome: await selectOption(pane, { match: label(/^yes, i accept/i) }) };
  }
}
