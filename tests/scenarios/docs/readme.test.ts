/**
 * The README and its reference pages in docs/ say what the command line, the HTTP API and the config
 * really accept, and every link between them leads to a page and a heading that exist.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../../src/http/routes.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, ROOT, startInProcess } from '../../support/gateway-rig.js';
import { runCli } from '../../support/run-cli.js';

/** A reference page of docs/, whole. */
const page = (name: string) => fs.readFileSync(path.join(ROOT, 'docs', name), 'utf8');
const PAGES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);

/** The text outside fenced code blocks: a heading or a link inside one is none. */
const outsideFences = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, '');

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, title] of outsideFences(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = title!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

/** Each relative link of a page (not one inside code), as the page it leads to and its anchor. */
function links(from: string): { target: string; to: string; anchor?: string }[] {
  const text = outsideFences(fs.readFileSync(path.join(ROOT, from), 'utf8')).replace(/`[^`\n]*`/g, '``');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/.test(target)) // https:, mailto:
    .map((target) => {
      const [file, anchor] = target.split('#');
      return { target, to: file ? path.join(path.dirname(from), file) : from, anchor };
    });
}

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

  it("says what relay mode does not ask about: the CLI's read-only Bash (permission-relay.readonly.test.ts)", () => {
    const security = page('security.md');
    const at = security.indexOf('**What `relay` does not ask about.**');
    expect(at).toBeGreaterThan(0);
    const para = security.slice(at, security.indexOf('\n\n', at));
    for (const ran of ['`echo`', '`pwd`', '`ls`', '`cat .env`']) expect(para).toContain(ran);
    for (const asked of ['`env`', '`printenv`', '`echo $ANTHROPIC_API_KEY`', '`touch x`', '`cat /etc/hostname`'])
      expect(para).toContain(asked);
  });

  it('every relative link of the README and docs/ leads to a page, and its #anchor to a heading of that page', () => {
    const broken: string[] = [];
    for (const from of PAGES)
      for (const { target, to, anchor } of links(from)) {
        const file = path.join(ROOT, to);
        if (!fs.existsSync(file)) broken.push(`${from}: ${target} (no such file)`);
        else if (anchor && !anchors(fs.readFileSync(file, 'utf8')).has(anchor))
          broken.push(`${from}: ${target} (no such heading)`);
      }
    expect(broken).toEqual([]);
  });

  it('the README links every page of docs/', () => {
    const linked = new Set(links('README.md').map((l) => l.to));
    expect(PAGES.filter((p) => p !== 'README.md' && !linked.has(p))).toEqual([]);
  });
});
