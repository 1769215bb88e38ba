/** `rudder pane-state [--file F] [--json]`: classifies a Claude Code TUI capture read from stdin or a file. */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { classifyPaneDetailed } from '../agents/tmux/pane-state.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { file: { type: 'string', short: 'f' }, json: { type: 'boolean' } } });
  let text: string;
  try {
    text = values.file ? fs.readFileSync(values.file, 'utf8') : fs.readFileSync(0, 'utf8');
  } catch (err) {
    process.stderr.write(`rudder pane-state: cannot read ${values.file ?? 'stdin'}: ${(err as Error).message}\n`);
    return 2;
  }
  const r = classifyPaneDetailed(text);
  process.stdout.write(values.json ? `${JSON.stringify({ state: r.state, reasons: r.reasons })}\n` : `${r.state}\n`);
  return 0;
}
