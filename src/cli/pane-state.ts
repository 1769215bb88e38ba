/** `rudder pane-state [--file F] [--json]`: classifies a Claude Code TUI capture read from stdin or a file. */
import fs from 'node:fs';
import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('pane-state')
    .description('classify a Claude Code TUI capture (stdin by default): ready, busy, menu or not-ready')
    .option('-f, --file <file>', 'read the capture from this file instead of stdin')
    .option('--json', 'print {"state", "reasons"} as JSON')
    .addHelpText('after', "\nExample:\n  tmux -L rudder capture-pane -p -t '=rudder-web-…' | rudder pane-state --json")
    .action(async (opts: { file?: string; json?: boolean }) => {
      process.exitCode = await paneState(opts);
    });
}

export async function paneState(opts: { file?: string; json?: boolean }): Promise<number> {
  let text: string;
  try {
    text = opts.file ? fs.readFileSync(opts.file, 'utf8') : fs.readFileSync(0, 'utf8');
  } catch (err) {
    process.stderr.write(`rudder pane-state: cannot read ${opts.file ?? 'stdin'}: ${(err as Error).message}\n`);
    return 2;
  }
  const { classifyPaneDetailed } = await import('../agents/tmux/screen/pane-state.js');
  const r = classifyPaneDetailed(text);
  process.stdout.write(opts.json ? `${JSON.stringify({ state: r.state, reasons: r.reasons })}\n` : `${r.state}\n`);
  return 0;
}
