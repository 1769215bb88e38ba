/**
 * The `hooks` config section: the listener and the hooks beside it, defaults, and each bad key named with what is
 * wrong.
 */
import { describe, expect, it } from 'vitest';
import { hookNamed, hooksSchema } from '../../../src/config/hooks-schema.js';

const SECRET = 'test-secret-0123456789abcdef';

function problems(value: unknown): string[] {
  const r = hooksSchema.safeParse(value);
  if (r.success) return [];
  return r.error.issues.map((i) =>
    i.code === 'unrecognized_keys'
      ? `${[...i.path, ...i.keys].join('.')}: unknown key`
      : `${i.path.join('.')}: ${i.message}`,
  );
}

describe('hooks schema', () => {
  it('fills the defaults of a hook and of the listener', () => {
    const hooks = hooksSchema.parse({
      listen: { port: 8788 },
      ci: { kind: 'github', secret: SECRET, project: 'api' },
      deploy: { secret: SECRET, prompt: 'Deploy of {{service}}', deliver: 'telegram:42' },
    });
    expect(hooks.listen).toEqual({ host: '127.0.0.1', port: 8788, exposed: false });
    expect(hookNamed(hooks, 'ci')).toEqual({
      kind: 'github',
      secret: SECRET,
      project: 'api',
      unowned: 'drop',
      ignoreUsers: [],
      enabled: true,
    });
    expect(hookNamed(hooks, 'deploy')).toMatchObject({ kind: 'generic', prompt: 'Deploy of {{service}}' });
    expect(hookNamed(hooks, 'listen')).toBeUndefined();
    expect(hookNamed(hooks, 'toString')).toBeUndefined();
  });

  it('names the key and says what is wrong', () => {
    expect(problems({ ci: { secret: 'short', deliver: 'web:a' } })).toEqual([
      'ci.secret: must be at least 16 characters; make one with: openssl rand -hex 32',
    ]);
    expect(problems({ ci: { secret: SECRET } })).toEqual([
      'ci.deliver: is required (or set project): say where deliveries go, e.g. "deliver": "telegram:12345"',
    ]);
    expect(problems({ ci: { secret: SECRET, deliver: 'web:a', prompt: 'CI {{ a | b }}' } })[0]).toMatch(
      /^ci\.prompt: \{\{ a \| b \}\} is not a field/,
    );
    expect(problems({ ci: { secret: SECRET, deliver: 'web:a', events: ['check_run'] } })).toEqual([
      'ci.events: is for kind github only',
    ]);
    expect(problems({ ci: { kind: 'github', secret: SECRET, deliver: 'web:a', events: ['push'] } })[0]).toMatch(
      /^ci\.events\.0: /,
    );
    expect(problems({ ci: { kind: 'github', secret: SECRET, deliver: 'web:a', unowned: 'default' } })).toEqual([
      'ci.unowned: "default" needs project: whose default conversation?',
    ]);
    expect(problems({ ci: { secret: SECRET, deliver: 'web:a', token: 'x' } })).toEqual(['ci.token: unknown key']);
    expect(problems({ 'bad name': { secret: SECRET, deliver: 'web:a' } })[0]).toMatch(
      /^bad name: a hook's name must be 1-48 letters/,
    );
  });

  it('refuses a listener on a network address unless exposed is said', () => {
    expect(problems({ listen: { host: '0.0.0.0', port: 8788 } })[0]).toMatch(
      /^listen\.exposed: 0\.0\.0\.0 is not a loopback address/,
    );
    expect(problems({ listen: { host: '0.0.0.0', port: 8788, exposed: true } })).toEqual([]);
    expect(problems({ listen: { host: '127.0.0.1' } })[0]).toMatch(/^listen\.port: /);
  });
});
