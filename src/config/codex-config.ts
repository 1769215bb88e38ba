/**
 * What agent.codex.config may hold, checked when the config is read: dotted keys codex accepts
 * after `-c`, values TOML can write, and no credential on codex's command line.
 */

export type JsonValue = string | number | boolean | JsonValue[] | { [key: string]: JsonValue };

/** A key codex accepts after `-c`: dot-separated parts of letters, digits, `_` and `-`. */
export const CONFIG_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/**
 * A key whose value would be a credential: argv is readable by every user of the machine (`ps`),
 * so a secret must come from the environment (a provider's `env_key` names the variable).
 */
export function secretKeyProblem(key: string): string | undefined {
  const last = key.split('.').at(-1)!.toLowerCase();
  if (/token|secret|password|passwd|bearer|credential/.test(last) || /^(api[_-]?key|http_headers)$/.test(last))
    return (
      `${key} would put a secret on codex's command line, where any user of the machine can read it (ps). ` +
      'Name an environment variable instead (e.g. model_providers.<id>.env_key) and set it in agent.env'
    );
  return undefined;
}
