/**
 * A certificate authority of a test's own, and a server certificate it signs for 127.0.0.1 (what an
 * operator's TLS listener on a private network has), made with openssl into a directory.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface TestCertificates {
  /** The CA's certificate (PEM file). */
  ca: string;
  /** The server's certificate and key (PEM files), for 127.0.0.1 and localhost. */
  cert: string;
  key: string;
}

export function testCertificates(dir: string): TestCertificates {
  const at = (name: string) => path.join(dir, name);
  const openssl = (args: string) => execFileSync('openssl', args.split(' '), { stdio: 'ignore' });
  const rsa = 'rsa:2048 -nodes';
  openssl(`req -x509 -newkey ${rsa} -days 1 -subj /CN=rudder-test-ca -keyout ${at('ca.key')} -out ${at('ca.pem')}`);
  openssl(`req -newkey ${rsa} -subj /CN=127.0.0.1 -keyout ${at('server.key')} -out ${at('server.csr')}`);
  fs.writeFileSync(at('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    `x509 -req -in ${at('server.csr')} -CA ${at('ca.pem')} -CAkey ${at('ca.key')} -CAcreateserial -days 1 ` +
      `-extfile ${at('san.ext')} -out ${at('server.pem')}`,
  );
  return { ca: at('ca.pem'), cert: at('server.pem'), key: at('server.key') };
}
