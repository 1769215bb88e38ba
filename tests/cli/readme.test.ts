/** The README's reference pages in docs/ say what the command line, the HTTP API and the config really accept. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/routes.js';
import { tempDir } from '../support/claude-rig.js';
import { agentConfig, ROOT, startInProcess } from '../support/gateway-rig.js';
import { runCli } from './run-cli.js';

/** A reference page of docs/, whole. */
const page = (name: string) => fs.readFileSync(path.join(ROOT, 'docs', name), 'utf8');
describe('README and docs/', () => {
  it('the command table lists every command of rudder --help, and no other', async () => {
    const help = (await runCli(['--help'])).stdout;
    const commands = [...help.slice(help.indexOf('Commands:')).matchAll(/^ {2}([a-z-]+)/gm)]
      .map((m) => m[1])
      .filter((c) => c !== 'help');
    const documented = [...page('cli.md').matchAll(/^\| `rudder ([a-z-]+)/gm)].map((m) => m[1]);
    expect(new Set(documented)).toEqual(new Set(commands));
  });

  it('documents optionId on the permissions endpoint, which the API takes', async () => {
    const row = page('http-api.md')
      .split('\n')
      .find((l) => l.includes('/conversations/:id/permissions/:requestId'))!;
    expect(row).toContain('"optionId"');
    expect(row).toContain('`options`');
    const gw = await startInProcess({ agent: agentConfig('http://127.0.0.1:9', tempDir('chome')) });
    try {
      // Accepted as a field (an unknown field is a 400): this request id is simply not waiting.
      const res = await gw.api('POST', '/api/conversations/p1/permissions/nope', {
        allow: false,
        optionId: 'option-2',
      });
      expect(res.status).toBe(404);
      const bad = await gw.api('POST', '/api/conversations/p1/permissions/nope', { allow: false, option: 'option-2' });
      expect(bad.status).toBe(400);
    } finally {
      await gw.stop();
    }
  });

  it('the HTTP API page names every route of the route table', () => {
    const api = page('http-api.md');
    expect(ROUTES.filter((r) => !api.includes(r.path)).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('documents the new configuration keys', () => {
    const config = page('configuration.md');
    expect(config).toMatch(/\| `longTurnSeconds` \| 60 \|/);
    expect(config).toContain('"push": { "enabled": true, "longTurnSeconds": 60');
    expect(config).toMatch(/\| `autocompact` \| `auto` \|/);
    expect(config).toContain('"autocompact": "auto"');
    expect(config).toContain('"store": { "synchronous": "normal" }');
    expect(page('durability.md')).toMatch(/\| `full` \| .*power cut/);
  });

  it("says what relay mode does not ask about: the CLI's read-only Bash (tests/agents/claude/relay-readonly)", () => {
    const security = page('security.md');
    const at = security.indexOf('**What `relay` does not ask about.**');
    expect(at).toBeGreaterThan(0);
    const para = security.slice(at, security.indexOf('\n\n', at));
    for (const ran of ['`echo`', '`pwd`', '`ls`', '`cat .env`']) expect(para).toContain(ran);
    for (const asked of ['`env`', '`printenv`', '`echo $ANTHROPIC_API_KEY`', '`touch x`', '`cat /etc/hostname`'])
      expect(para).toContain(asked);
  });
});
