/**
 * The fake push service's decryption is the one a browser does: RFC 8291's own example message
 * (Appendix A) decrypts to its plaintext, a changed byte does not decrypt, and what the web-push
 * library encrypts for a device decrypts with that device's keys.
 */
import { createECDH } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { decryptPush } from './fake-push.js';

const RFC8291 = {
  uaPrivate: 'q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94',
  uaPublic: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
  auth: 'BTBZMqHH6r4Tts7J_aSIgg',
  message:
    'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PB' +
    'ru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
  plaintext: 'When I grow up, I want to be a watermelon',
};

function rfcDevice() {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(Buffer.from(RFC8291.uaPrivate, 'base64url'));
  return { ecdh, auth: Buffer.from(RFC8291.auth, 'base64url') };
}

describe('fake push service: RFC 8291 decryption', () => {
  it("decrypts RFC 8291's example message, and refuses it with one byte changed", () => {
    const ua = rfcDevice();
    expect(ua.ecdh.getPublicKey().toString('base64url')).toBe(RFC8291.uaPublic);
    const body = Buffer.from(RFC8291.message, 'base64url');
    expect(decryptPush(body, ua)).toBe(RFC8291.plaintext);
    const changed = Buffer.from(body);
    changed[changed.length - 20]! ^= 1;
    expect(() => decryptPush(changed, ua)).toThrow(/authenticate/);
  });

  it('decrypts what web-push encrypts for a device (aes128gcm), multi-byte text included', () => {
    const ua = rfcDevice();
    const text = JSON.stringify({ title: 'Bash waits for you', body: 'rm -rf ./build ⟨U+202E⟩ ✓' });
    const { cipherText } = webpush.encrypt(RFC8291.uaPublic, RFC8291.auth, text, 'aes128gcm');
    expect(decryptPush(cipherText, ua)).toBe(text);
    const other = createECDH('prime256v1');
    other.generateKeys();
    expect(() => decryptPush(cipherText, { ecdh: other, auth: ua.auth })).toThrow();
  });
});
