/**
 * What a repository's own config may not make review git run. The agent can write `.git/config`
 * (it is inside the project), so a program named there (a filter or merge driver that
 * `.gitattributes` picks, an ssh command, a signing program, a credential helper, the pack
 * program of a remote on disk) would run outside the agent's permission mode when the person
 * presses Commit or Push. For each such key the repository sets, the person's own value (their
 * global or system config) is given on the command line in its place, which wins over every
 * file; without one, a value that runs nothing of the repository's. A remote's receive-pack
 * program is the exception: git keeps the first one it reads, so a push is given its own.
 */

export interface ConfigEntry {
  /** system, global, local, worktree or command. */
  scope: string;
  /** As git lists it: section and name in lower case, a subsection as written. */
  key: string;
  value: string | undefined;
}

/** `git config --list --show-scope -z`: "scope\0key\nvalue\0" per entry ("scope\0key\0" without a value). */
export function parseConfigList(out: string): ConfigEntry[] {
  const parts = out.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const kv = parts[i + 1]!;
    const nl = kv.indexOf('\n');
    entries.push({
      scope: parts[i]!,
      key: nl < 0 ? kv : kv.slice(0, nl),
      value: nl < 0 ? undefined : kv.slice(nl + 1),
    });
  }
  return entries;
}

/** Scopes the repository's files make (the agent can write them). */
const REPOSITORY = new Set(['local', 'worktree']);
/** Scopes that are the person's own. */
const OWN = new Set(['system', 'global']);

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Keys whose value git runs as a program, with what stands in when only the repository sets them. */
const PROGRAM_KEYS: Array<{ key: RegExp; otherwise: (env: NodeJS.ProcessEnv) => string }> = [
  // An empty driver command is no driver: the file's bytes are taken as they are.
  { key: /^filter\..+\.(clean|smudge|process)$/, otherwise: () => '' },
  // git's own three-way text merge, as the merge driver it would have been without one.
  { key: /^merge\..+\.driver$/, otherwise: () => 'git merge-file --marker-size=%L %A %O %B' },
  { key: /^core\.sshcommand$/, otherwise: (env) => (env.GIT_SSH ? quote(env.GIT_SSH) : 'ssh') },
  { key: /^core\.askpass$/, otherwise: () => '' },
  { key: /^gpg\.(openpgp\.)?program$/, otherwise: () => 'gpg' },
  { key: /^gpg\.x509\.program$/, otherwise: () => 'gpgsm' },
  { key: /^gpg\.ssh\.program$/, otherwise: () => 'ssh-keygen' },
  { key: /^gpg\.ssh\.defaultkeycommand$/, otherwise: () => '' },
];

const CREDENTIAL_HELPER = /^credential\.(.+\.)?helper$/;
const FILTER_COMMAND = /^filter\.(.+)\.(clean|smudge|process)$/;
/** Runs on this machine for a remote on disk (on the far host over ssh). */
const RECEIVE_PACK = /^remote\..+\.receivepack$/;

export interface Overrides {
  /** `-c key=value` pairs, before the subcommand. */
  config: string[];
  /** Options of `git push`, after it. */
  push: string[];
}

/** What takes the repository's programs out of a git command. */
export function repositoryOverrides(entries: ConfigEntry[], env: NodeJS.ProcessEnv): Overrides {
  const named = entries.some((e) => REPOSITORY.has(e.scope) && RECEIVE_PACK.test(e.key));
  return {
    config: [...programKeys(entries, env), ...credentialHelpers(entries)],
    push: named ? ['--receive-pack=git-receive-pack'] : [],
  };
}

function programKeys(entries: ConfigEntry[], env: NodeJS.ProcessEnv): string[] {
  const own = new Map<string, string>();
  for (const e of entries) if (OWN.has(e.scope) && e.value !== undefined) own.set(e.key, e.value);
  const set = new Map<string, string>();
  for (const e of entries) {
    if (!REPOSITORY.has(e.scope)) continue;
    const rule = PROGRAM_KEYS.find((r) => r.key.test(e.key));
    if (!rule) continue;
    set.set(e.key, own.get(e.key) ?? rule.otherwise(env));
    // A driver taken away must not be required either, or git refuses the file.
    const filter = FILTER_COMMAND.exec(e.key)?.[1];
    if (filter && !own.has(e.key)) set.set(`filter.${filter}.required`, 'false');
  }
  return [...set].flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}

/**
 * Credential helpers are a list, and an empty value empties it: when the repository names one, the list is
 * emptied on the command line and the person's own helpers given again, in their order.
 */
function credentialHelpers(entries: ConfigEntry[]): string[] {
  const helpers = entries.filter((e) => CREDENTIAL_HELPER.test(e.key));
  if (!helpers.some((e) => REPOSITORY.has(e.scope))) return [];
  const own = helpers.filter((e) => OWN.has(e.scope) && e.value !== undefined);
  return ['-c', 'credential.helper=', ...own.flatMap((e) => ['-c', `${e.key}=${e.value}`])];
}
