/**
 * The pure parts of the Codex backend: the line parser, TOML literals for -c, binary resolution,
 * the permission table, tool inputs from codex items, client ids and error typing.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bundledCodex, resolveCodexBinary } from '../../../src/agents/codex/binary.js';
import { configArgs, tomlLiteral, tomlString } from '../../../src/agents/codex/config-args.js';
import { buildCodexEnv } from '../../../src/agents/codex/env.js';
import { CODEX_POLICIES } from '../../../src/agents/codex/permission-mode.js';
import { parseMessage } from '../../../src/agents/codex/protocol/parse.js';
import { decodeClientId, encodeClientId } from '../../../src/agents/codex/session/client-id.js';
import { TurnItems } from '../../../src/agents/codex/session/items-to-events.js';
import { resetsAtOf, turnError } from '../../../src/agents/codex/session/results.js';
import { fileChangeCall, hunksOf, unwrapShell } from '../../../src/agents/codex/session/tool-inputs.js';
import { TurnBase } from '../../../src/agents/common/turn-base.js';
import type { TurnEvent } from '../../../src/agents/session.js';
import { secretKeyProblem } from '../../../src/config/codex-config.js';
import { PERMISSION_MODES } from '../../../src/config/permission-modes.js';
import { isRudderError } from '../../../src/errors.js';
import { tempDir } from '../../support/claude-rig.js';

describe('codex line parser', () => {
  it('tells responses, errors, notifications and server requests apart', () => {
    expect(parseMessage('{"id":3,"result":{"turnId":"t"}}')).toEqual({
      kind: 'response',
      id: 3,
      result: { turnId: 't' },
    });
    expect(parseMessage('{"error":{"code":-32600,"message":"no active turn to steer"},"id":4}')).toEqual({
      kind: 'error-response',
      id: 4,
      error: { code: -32600, message: 'no active turn to steer' },
    });
    expect(parseMessage('{"method":"turn/started","params":{"threadId":"x"}}')).toEqual({
      kind: 'notification',
      method: 'turn/started',
      params: { threadId: 'x' },
    });
    expect(parseMessage('{"method":"item/commandExecution/requestApproval","id":0,"params":{}}')).toMatchObject({
      kind: 'request',
      id: 0,
    });
    expect(parseMessage('   ')).toEqual({ kind: 'blank' });
  });

  it('never throws, whatever the line', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (line) => {
          const m = parseMessage(line);
          expect(['response', 'error-response', 'notification', 'request', 'blank', 'malformed']).toContain(m.kind);
        },
      ),
    );
    expect(parseMessage('{"id":{"x":1},"result":1}').kind).toBe('malformed');
    expect(parseMessage('{"id":1}').kind).toBe('malformed');
    expect(parseMessage('[1,2]').kind).toBe('malformed');
    expect(parseMessage('{"id":1,"error":"nope"}').kind).toBe('malformed');
  });
});

describe('agent.codex.config as -c overrides', () => {
  it('writes each value as a TOML literal', () => {
    expect(
      configArgs({
        model_provider: 'mock',
        'model_providers.mock.base_url': 'http://127.0.0.1:9/v1',
        'model_providers.mock.request_max_retries': 0,
        'features.web_search': false,
        'sandbox_workspace_write.writable_roots': ['/a', 'b "c"'],
        'shell_environment_policy.set': { FOO: 'bar', 'with space': 1.5 },
      }),
    ).toEqual([
      '-c',
      'model_provider="mock"',
      '-c',
      'model_providers.mock.base_url="http://127.0.0.1:9/v1"',
      '-c',
      'model_providers.mock.request_max_retries=0',
      '-c',
      'features.web_search=false',
      '-c',
      'sandbox_workspace_write.writable_roots=["/a", "b \\"c\\""]',
      '-c',
      'shell_environment_policy.set={ FOO = "bar", "with space" = 1.5 }',
    ]);
  });

  it('escapes what a TOML basic string cannot hold', () => {
    expect(tomlString('a\\b"c\nd\te\u0001')).toBe('"a\\\\b\\"c\\nd\\te\\u0001"');
    // Round trip through JSON, whose escapes TOML basic strings share for these characters.
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(JSON.parse(tomlString(s).replace(/\\u007f/g, '\u007f'))).toBe(s);
      }),
    );
  });

  it('refuses what TOML has no literal for, and keys that are not dotted names', () => {
    expect(() => tomlLiteral(null, 'x')).toThrow(/TOML has no null/);
    expect(() => tomlLiteral(Number.NaN, 'x')).toThrow(/not a TOML number/);
    expect(() => configArgs({ 'a..b': 1 })).toThrow(/not a dotted key/);
  });

  it('flags keys whose values would be secrets on the command line', () => {
    expect(secretKeyProblem('model_providers.x.experimental_bearer_token')).toMatch(/ps/);
    expect(secretKeyProblem('model_providers.x.http_headers')).toMatch(/env_key/);
    expect(secretKeyProblem('model_providers.x.env_key')).toBeUndefined();
    expect(secretKeyProblem('model')).toBeUndefined();
  });
});

describe('codex binary', () => {
  it('an explicit path that does not run is an error naming the setting, with no fallback', () => {
    const missing = path.join(tempDir('nobin'), 'codex');
    const err = (() => {
      try {
        resolveCodexBinary(missing, { PATH: path.dirname(bundledCodex()!) });
      } catch (e) {
        return e;
      }
    })();
    expect(isRudderError(err, 'CODEX_BINARY_MISSING')).toBe(true);
    expect((err as Error).message).toContain(`agent.codex.bin is set to ${missing}`);
    expect(() => resolveCodexBinary(undefined, { RUDDER_CODEX_BIN: missing })).toThrow(/RUDDER_CODEX_BIN is set to/);
  });

  it('takes RUDDER_CODEX_BIN, then codex on PATH, then the pinned package', () => {
    const dir = tempDir('bin');
    const fake = path.join(dir, 'codex');
    fs.writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 });
    expect(resolveCodexBinary(undefined, { RUDDER_CODEX_BIN: fake, PATH: '' })).toEqual({ path: fake, source: 'env' });
    expect(resolveCodexBinary(undefined, { PATH: dir })).toEqual({ path: fake, source: 'path' });
    expect(resolveCodexBinary(undefined, { PATH: '' })).toEqual({ path: bundledCodex(), source: 'bundled' });
    expect(resolveCodexBinary(fake, { PATH: '' }).source).toBe('config');
  });
});

describe('codex environment', () => {
  it('passes the codex keys and the user CODEX_HOME; agent.env CODEX_HOME wins', () => {
    const inherited = { PATH: '/bin', OPENAI_API_KEY: 'k1', CODEX_API_KEY: 'k2', CODEX_HOME: '/u', GITHUB_TOKEN: 'no' };
    const env = buildCodexEnv({ inherited });
    expect(env).toMatchObject({ OPENAI_API_KEY: 'k1', CODEX_API_KEY: 'k2', CODEX_HOME: '/u' });
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(buildCodexEnv({ inherited, extra: { CODEX_HOME: '/mine' } }).CODEX_HOME).toBe('/mine');
    // What only Claude Code reads stays out, unless named.
    const claude = { ...inherited, ANTHROPIC_API_KEY: 'sk-ant', CLAUDE_CODE_OAUTH_TOKEN: 't' };
    expect(buildCodexEnv({ inherited: claude }).ANTHROPIC_API_KEY).toBeUndefined();
    expect(buildCodexEnv({ inherited: claude }).CLAUDE_CODE_OAUTH_TOKEN).toBeUndefined();
    expect(buildCodexEnv({ inherited: claude, passVars: ['ANTHROPIC_API_KEY'] }).ANTHROPIC_API_KEY).toBe('sk-ant');
  });
});

describe('permission modes on codex', () => {
  it('maps every Rudder mode; bypass is never + full access, relay is on-request + workspace-write', () => {
    for (const m of PERMISSION_MODES) expect(CODEX_POLICIES[m]).toBeDefined();
    expect(CODEX_POLICIES.bypassPermissions).toMatchObject({ approvalPolicy: 'never', sandbox: 'danger-full-access' });
    expect(CODEX_POLICIES.relay).toMatchObject({ approvalPolicy: 'on-request', sandbox: 'workspace-write' });
    expect(CODEX_POLICIES.plan.sandbox).toBe('read-only');
  });
});

describe('codex items as tool inputs', () => {
  it('unwraps the shell codex adds around a command', () => {
    expect(unwrapShell("/bin/bash -lc 'echo hi; pwd'")).toBe('echo hi; pwd');
    expect(unwrapShell("/bin/bash -lc 'echo '\\''quoted'\\'''")).toBe("echo 'quoted'");
    expect(unwrapShell('ls -la')).toBe('ls -la');
  });

  it('turns file changes into Write, Edit and MultiEdit with before and after texts', () => {
    expect(fileChangeCall({ path: '/p/new.txt', kind: { type: 'add' }, diff: 'hello\n' })).toEqual({
      name: 'Write',
      input: { file_path: '/p/new.txt', content: 'hello\n' },
    });
    const two = '@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -7,2 +7,2 @@\n g\n-h\n+H\n';
    expect(hunksOf(two)).toEqual([
      { old_string: 'a\nb\nc', new_string: 'a\nB\nc' },
      { old_string: 'g\nh', new_string: 'g\nH' },
    ]);
    expect(fileChangeCall({ path: '/p/u.txt', kind: { type: 'update', move_path: null }, diff: two }).name).toBe(
      'MultiEdit',
    );
    expect(fileChangeCall({ path: '/p/d.txt', kind: { type: 'delete' }, diff: 'bye\n' }).input).toMatchObject({
      old_string: 'bye\n',
      new_string: '',
    });
  });
});

describe('client ids and failures', () => {
  it('a client id names the inputs it carries; others name none', () => {
    expect(decodeClientId(encodeClientId(['m1', 'm,2']))).toEqual(['m1', 'm,2']);
    expect(decodeClientId('someone-else')).toBeUndefined();
    expect(decodeClientId('rudder1.!!!')).toBeUndefined();
    expect(decodeClientId(null)).toBeUndefined();
  });

  it('types codex errors: 429s and usage limits as rate limits, HTTP statuses as API errors', () => {
    const ctx = { conversationId: 'c', threadId: 't', pid: 1, rateLimits: undefined };
    const usage = turnError(
      { message: 'limit', codexErrorInfo: 'usageLimitExceeded', additionalDetails: null, misalignment: null },
      {
        ...ctx,
        rateLimits: {
          limitId: 'codex',
          limitName: null,
          normalModelSlug: null,
          primary: { usedPercent: 100, windowDurationMins: 300, resetsAt: 1_900_000_000 },
          secondary: { usedPercent: 20, windowDurationMins: 10_080, resetsAt: 1_900_500_000 },
          credits: null,
          individualLimit: null,
          spendControlReached: null,
          planType: null,
          rateLimitReachedType: null,
        },
      },
      ['m'],
    );
    expect(usage.code).toBe('AGENT_RATE_LIMITED');
    expect(usage.context).toMatchObject({ resetsAt: 1_900_000_000_000, unanswered: ['m'], apiErrorStatus: 429 });
    const too = turnError(
      {
        message: 'x',
        codexErrorInfo: { responseTooManyFailedAttempts: { httpStatusCode: 429 } },
        additionalDetails: null,
        misalignment: null,
      },
      ctx,
      [],
    );
    expect(too.code).toBe('AGENT_RATE_LIMITED');
    const api = turnError(
      {
        message: 'x',
        codexErrorInfo: { httpConnectionFailed: { httpStatusCode: 503 } },
        additionalDetails: null,
        misalignment: null,
      },
      ctx,
      [],
    );
    expect(api.code).toBe('AGENT_API_ERROR');
    expect(api.context.apiErrorStatus).toBe(503);
    expect(
      turnError(
        { message: 'x', codexErrorInfo: 'contextWindowExceeded', additionalDetails: null, misalignment: null },
        ctx,
        [],
      ).code,
    ).toBe('AGENT_TURN_FAILED');
    expect(resetsAtOf(undefined)).toBeUndefined();
  });
});

describe('codex notifications as turn events', () => {
  async function eventsFor(notes: Array<[string, unknown]>): Promise<TurnEvent[]> {
    const turn = new TurnBase([]);
    const items = new TurnItems();
    for (const [m, p] of notes) items.handle(m, p, turn);
    const out: TurnEvent[] = [];
    turn.onEvent((e) => out.push(e));
    await new Promise((r) => setImmediate(r));
    return out;
  }

  it("a plan update is a TodoWrite step in Claude's shape, its output the list", async () => {
    const events = await eventsFor([
      [
        'turn/plan/updated',
        {
          threadId: 't',
          turnId: 'u',
          explanation: null,
          plan: [
            { step: 'read the code', status: 'completed' },
            { step: 'fix the bug', status: 'inProgress' },
            { step: 'test', status: 'pending' },
          ],
        },
      ],
    ]);
    expect(events[0]).toMatchObject({
      type: 'tool-use',
      name: 'TodoWrite',
      input: {
        todos: [
          { content: 'read the code', status: 'completed' },
          { content: 'fix the bug', status: 'in_progress' },
          { content: 'test', status: 'pending' },
        ],
      },
    });
    expect(events[1]).toMatchObject({ type: 'tool-result', excerpt: '☑ read the code\n▶ fix the bug\n☐ test' });
  });

  it('an MCP call is a step mcp__server__tool; a retried error is a status; usage adds up per request', async () => {
    const items = new TurnItems();
    const turn = new TurnBase([]);
    const mcp = {
      type: 'mcpToolCall',
      id: 'm1',
      server: 'docs',
      tool: 'search',
      arguments: { q: 'x' },
      status: 'inProgress',
    };
    items.handle('item/started', { item: mcp, threadId: 't', turnId: 'u', startedAtMs: 0 }, turn);
    items.handle(
      'item/completed',
      {
        item: { ...mcp, status: 'completed', result: { content: [{ type: 'text', text: 'found' }] }, error: null },
        threadId: 't',
        turnId: 'u',
        completedAtMs: 0,
      },
      turn,
    );
    items.handle(
      'error',
      {
        error: { message: 'stream dropped', codexErrorInfo: null, additionalDetails: null, misalignment: null },
        willRetry: true,
        threadId: 't',
        turnId: 'u',
      },
      turn,
    );
    const last = {
      totalTokens: 15,
      inputTokens: 10,
      cachedInputTokens: 4,
      cacheWriteInputTokens: 1,
      outputTokens: 5,
      reasoningOutputTokens: 0,
    };
    for (let i = 0; i < 2; i++)
      items.handle(
        'thread/tokenUsage/updated',
        { threadId: 't', turnId: 'u', tokenUsage: { total: last, last, modelContextWindow: null } },
        turn,
      );
    const out: TurnEvent[] = [];
    turn.onEvent((e) => out.push(e));
    await new Promise((r) => setImmediate(r));
    expect(out[0]).toMatchObject({ type: 'tool-use', name: 'mcp__docs__search', input: { q: 'x' } });
    expect(out[1]).toMatchObject({ type: 'tool-result', isError: false, excerpt: 'found' });
    expect(out[2]).toMatchObject({ type: 'status', message: 'Codex: stream dropped (retrying)' });
    expect(items.usage).toEqual({
      inputTokens: 20,
      cachedInputTokens: 8,
      cacheWriteInputTokens: 2,
      outputTokens: 10,
      requests: 2,
    });
  });
});
