/**
 * A fake Web Push service (what a browser vendor runs): HTTPS on 127.0.0.1 under the name
 * push.rudder.test (a push service has a name, never an address), with a certificate that openssl
 * makes for this run (web-push speaks only HTTPS; the gateway trusts it, and finds the name, through
 * GatewayOptions.pushAgent). It hands out devices as a browser subscribes one (an ECDH P-256 key
 * pair and a 16-byte auth secret, an endpoint of its own), and for every push web-push sends it:
 * checks the VAPID credential (RFC 8292: an ES256 JWT for this origin, expiring within 24 hours,
 * signed by the key in `k`), then decrypts the body with the device's keys (RFC 8291 over RFC 8188
 * aes128gcm), written here with node:crypto alone, so a test reads exactly what a browser would.
 * A test can make a device's endpoint answer 404 or 410 (the subscription is gone).
 */
import { execFileSync } from 'node:child_process';
import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify } from 'node:crypto';
import dns from 'node:dns';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { tempDir, waitUntil } from './claude-rig.js';

export interface FakeDevice {
  id: string;
  /** As PushSubscription.toJSON() gives it: what the page posts to the gateway. */
  subscription: { endpoint: string; keys: { p256dh: string; auth: string }; expirationTime: null };
}

export interface ReceivedPush {
  device: string;
  /** When the request arrived (performance.timeOrigin + now(), epoch ms with sub-ms precision). */
  at: number;
  ttl: number;
  urgency: string | undefined;
  topic: string | undefined;
  /** The VAPID JWT's claims, after its signature was checked. */
  vapid: { aud: string; exp: number; sub: string; key: string };
  /** The decrypted payload. */
  text: string;
  json<T = any>(): T;
}

/** The fake service's name (RFC 6761 keeps .test out of public DNS); its agent resolves it to 127.0.0.1. */
export const FAKE_PUSH_HOST = 'push.rudder.test';

export interface FakePushService {
  origin: string;
  /** Its port on 127.0.0.1. */
  port: number;
  /** Trusts this service's certificate and resolves its name: pass it as the gateway's pushAgent. */
  agent: https.Agent;
  /** TCP connections made to it, whatever came of them. */
  connections(): number;
  /** A new device, as a browser subscribing makes one. */
  device(): FakeDevice;
  /** From now on the device's endpoint answers this status (404, 410: gone); undefined: 201 again. */
  answerWith(deviceId: string, status: number | undefined): void;
  /** Pushes accepted and decrypted, in order. */
  received: ReceivedPush[];
  /** Pushes refused: a bad credential, a body that does not decrypt, or a scripted status. */
  refused: Array<{ device: string; status: number; why: string }>;
  waitFor(pred: (p: ReceivedPush) => boolean, timeoutMs: number): Promise<ReceivedPush>;
  close(): Promise<void>;
}

interface DeviceKeys {
  ecdh: ReturnType<typeof createECDH>;
  publicKey: Buffer;
  auth: Buffer;
  status?: number;
}

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/** RFC 5869 HKDF-Expand for one block (length ≤ 32), as RFC 8291 uses it. */
const expand = (prk: Buffer, info: Buffer, length: number) =>
  hmac(prk, Buffer.concat([info, Buffer.from([1])])).subarray(0, length);

/** RFC 8291 §3.4 with RFC 8188's aes128gcm framing: header (salt, rs, keyid = the sender's key), then records. */
export function decryptPush(body: Buffer, ua: { ecdh: ReturnType<typeof createECDH>; auth: Buffer }): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  if (idlen !== 65 || asPublic[0] !== 4) throw new Error(`keyid is not a P-256 public key (${idlen} bytes)`);
  const uaPublic = ua.ecdh.getPublicKey();
  const ecdhSecret = ua.ecdh.computeSecret(asPublic);
  const prkKey = hmac(ua.auth, ecdhSecret);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = expand(prkKey, keyInfo, 32);
  const prk = hmac(salt, ikm);
  const cek = expand(prk, Buffer.from('Content-Encoding: aes128gcm\0'), 16);
  const nonce = expand(prk, Buffer.from('Content-Encoding: nonce\0'), 12);
  const records = body.subarray(21 + idlen);
  const out: Buffer[] = [];
  for (let seq = 0, at = 0; at < records.length; seq++, at += rs) {
    const record = records.subarray(at, Math.min(at + rs, records.length));
    const iv = Buffer.from(nonce);
    // The record's sequence number XORed into the nonce's low bytes (records here number far below 2^32).
    iv.writeUInt32BE((iv.readUInt32BE(8) ^ seq) >>> 0, 8);
    const decipher = createDecipheriv('aes-128-gcm', cek, iv);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    let end = plain.length - 1;
    while (end >= 0 && plain[end] === 0) end--;
    const last = at + rs >= records.length;
    if (plain[end] !== (last ? 2 : 1)) throw new Error(`record ${seq} has no padding delimiter`);
    out.push(plain.subarray(0, end));
  }
  return Buffer.concat(out).toString('utf8');
}

/** RFC 8292: `vapid t=<ES256 JWT>, k=<P-256 public key>`; throws saying what is wrong. */
export function checkVapid(header: string | undefined, origin: string): ReceivedPush['vapid'] {
  const m = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+),\s*k=([\w-]+)$/.exec(header ?? '');
  if (!m) throw new Error(`no vapid credential in Authorization: ${header}`);
  const [head, claims, sig] = m[1]!.split('.') as [string, string, string];
  const raw = Buffer.from(m[2]!, 'base64url');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  const signed = Buffer.from(`${head}.${claims}`);
  if (!verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url')))
    throw new Error('the VAPID signature does not verify with k');
  if (JSON.parse(Buffer.from(head, 'base64url').toString()).alg !== 'ES256') throw new Error('alg is not ES256');
  const c = JSON.parse(Buffer.from(claims, 'base64url').toString()) as { aud: string; exp: number; sub: string };
  const now = Date.now() / 1000;
  if (c.aud !== origin) throw new Error(`aud ${c.aud} is not ${origin}`);
  if (!(c.exp > now && c.exp <= now + 24 * 3600 + 60)) throw new Error(`exp ${c.exp} is not within 24 hours`);
  if (!/^(mailto:|https:)/.test(c.sub)) throw new Error(`sub ${c.sub} is not a mailto: or https: contact`);
  return { ...c, key: m[2]! };
}

function selfSigned(): { key: Buffer; cert: Buffer } {
  const dir = tempDir('push-tls');
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'].concat([
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      `/CN=${FAKE_PUSH_HOST}`,
      '-addext',
      `subjectAltName=DNS:${FAKE_PUSH_HOST},IP:127.0.0.1`,
    ]),
    { stdio: 'ignore' },
  );
  return { key: fs.readFileSync(key), cert: fs.readFileSync(cert) };
}

/** The system's lookup, but the fake service's name is 127.0.0.1. */
function fakeLookup(
  host: string,
  o: dns.LookupOptions,
  cb: (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void,
): void {
  if (host !== FAKE_PUSH_HOST) return dns.lookup(host, o, cb as never);
  if (o.all) return cb(null, [{ address: '127.0.0.1', family: 4 }]);
  cb(null, '127.0.0.1', 4);
}

export async function startFakePush(): Promise<FakePushService> {
  const tls = selfSigned();
  const devices = new Map<string, DeviceKeys>();
  const received: ReceivedPush[] = [];
  const refused: FakePushService['refused'] = [];
  let origin = '';
  const server = https.createServer(tls, (req, res) => {
    const at = performance.timeOrigin + performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = /^\/push\/([\w-]+)$/.exec(req.url ?? '')?.[1] ?? '';
      const dev = devices.get(id);
      const refuse = (status: number, why: string) => {
        refused.push({ device: id, status, why });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(why);
      };
      if (req.method !== 'POST' || !dev) return refuse(404, 'no such subscription');
      if (dev.status) return refuse(dev.status, 'scripted');
      try {
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error('Content-Encoding is not aes128gcm');
        const ttl = Number(req.headers.ttl);
        if (!Number.isInteger(ttl) || ttl < 0) throw new Error('TTL header missing');
        const vapid = checkVapid(req.headers.authorization, origin);
        const text = decryptPush(Buffer.concat(chunks), dev);
        received.push({
          device: id,
          at,
          ttl,
          urgency: req.headers.urgency as string | undefined,
          topic: req.headers.topic as string | undefined,
          vapid,
          text,
          json: () => JSON.parse(text),
        });
        res.writeHead(201, { location: `${origin}/message/${received.length}` }).end();
      } catch (err) {
        refuse(400, (err as Error).message);
      }
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  origin = `https://${FAKE_PUSH_HOST}:${port}`;
  const agent = new https.Agent({ ca: tls.cert, keepAlive: true, lookup: fakeLookup as never });
  return {
    origin,
    port,
    agent,
    connections: () => connections,
    received,
    refused,
    device() {
      const id = randomBytes(9).toString('base64url');
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const keys: DeviceKeys = { ecdh, publicKey: ecdh.getPublicKey(), auth: randomBytes(16) };
      devices.set(id, keys);
      return {
        id,
        subscription: {
          endpoint: `${origin}/push/${id}`,
          keys: { p256dh: keys.publicKey.toString('base64url'), auth: keys.auth.toString('base64url') },
          expirationTime: null,
        },
      };
    },
    answerWith(id, status) {
      const d = devices.get(id);
      if (d) d.status = status;
    },
    async waitFor(pred, timeoutMs) {
      await waitUntil(() => received.some(pred), timeoutMs);
      return received.find(pred)!;
    },
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
