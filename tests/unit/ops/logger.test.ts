/**
 * No token reaches rudder.log through the logger (ops/logger.ts, ops/redact.ts): not `?token=` of a
 * logged URL, not a registered secret anywhere in a line; the log file itself is 0600, and a line
 * already shown on the terminal is not printed twice.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/ops/logger.js';
import { redact, registerSecret } from '../../../src/ops/redact.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { ROOT } from '../../support/gateway-rig.js';

describe('redact', () => {
  it('blanks token parameters, bearer credentials and registered secrets', () => {
    expect(redact('/api/conversations/a/events?token=abc123&lastEventId=4')).toBe(
      '/api/conversations/a/events?token=[redacted]&lastEventId=4',
    );
    expect(redact('http://127.0.0.1:8787/#token=abc-_123')).toBe('http://127.0.0.1:8787/#token=[redacted]');
    expect(redact('"url":"/x?a=1&token=zz9"')).toBe('"url":"/x?a=1&token=[redacted]"');
    expect(redact('/x?a=1\\u0026token=zz9')).toBe('/x?a=1\\u0026token=[redacted]');
    expect(redact('authorization: Bearer s3cr3t.value')).toBe('authorization: Bearer [redacted]');
    registerSecret('a-registered-secret-value');
    expect(redact('failed: a-registered-secret-value was wrong')).toBe('failed: [redacted] was wrong');
    expect(redact('/api/tokens?tokenizer=1')).toBe('/api/tokens?tokenizer=1');
  });

  it('runs on every line the logger writes, into a 0600 file', async () => {
    const dir = tempDir('log');
    registerSecret('secret-in-an-error-message');
    const log = createLogger({ dataDir: dir, level: 'debug', pretty: false });
    log.info({ url: '/api/x?token=plain-token-in-url' }, 'a request');
    log.error({ err: new Error('boom secret-in-an-error-message') }, 'failed with Bearer abc.def');
    log.flush();
    const file = path.join(dir, 'rudder.log');
    await waitUntil(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').split('\n').length >= 3);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain('plain-token-in-url');
    expect(text).not.toContain('secret-in-an-error-message');
    expect(text).not.toContain('abc.def');
    expect(text).toContain('token=[redacted]');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('a line already shown on the terminal', () => {
  it('goes to rudder.log but is not printed on the terminal a second time', async () => {
    const dir = tempDir('shown');
    const logger = path.join(ROOT, 'dist/ops/logger.js');
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { createLogger } = await import(${JSON.stringify(logger)});
         const log = createLogger({ dataDir: ${JSON.stringify(dir)}, pretty: true });
         process.stderr.write('rudder: warning: the config is inside the working directory\\n');
         log.warn({ shown: true }, 'the config is inside the working directory');
         log.warn('a line for the terminal too');
         log.flush();
         await new Promise((r) => setTimeout(r, 200));`,
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(r.stderr.match(/the config is inside the working directory/g)).toHaveLength(1);
    expect(r.stderr).toContain('a line for the terminal too');
    const file = fs.readFileSync(path.join(dir, 'rudder.log'), 'utf8');
    expect(file).toContain('"msg":"the config is inside the working directory"');
    expect(file).toContain('"msg":"a line for the terminal too"');
  });
});
