/** A tool call's input as a person reads it: a command as it will run, other fields one by one. */

const show = (v: unknown, pretty: boolean) => (typeof v === 'string' ? v : JSON.stringify(v, null, pretty ? 2 : 0));

/** `omit`: fields drawn elsewhere (an edit's old and new text make its diff). */
export function inputText(input: Record<string, unknown>, omit: readonly string[] = []): string {
  const entries = Object.entries(input).filter(([k]) => !omit.includes(k));
  if (typeof input.command === 'string' && !omit.includes('command'))
    return [
      input.command,
      ...entries.filter(([k]) => k !== 'command' && k !== 'description').map(([k, v]) => `${k}: ${show(v, false)}`),
    ].join('\n');
  return entries.map(([k, v]) => `${k}: ${show(v, true)}`).join('\n');
}
