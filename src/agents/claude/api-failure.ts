/**
 * Why a model request failed, in words a person can act on: read from what the CLI reports (its
 * "API Error: …" text, which ends in the connection's error code, and the HTTP status) and the
 * endpoint the agent's environment names. Pure; the codes are those the pinned CLI writes
 * (ENOTFOUND, ECONNREFUSED, ERR_PROXY_TUNNEL, ETIMEDOUT, the TLS certificate codes…).
 */
import { type ApiEndpoint, hostPort } from './endpoint.js';

export type ApiFailureCause =
  | 'dns'
  | 'refused'
  | 'unreachable'
  | 'proxy'
  | 'tls'
  | 'timeout'
  | 'unauthorized'
  | 'logged-out'
  | 'forbidden'
  | 'billing'
  | 'model'
  | 'rate-limited'
  | 'server'
  | 'other';

export interface ApiFailure {
  cause: ApiFailureCause;
  /** The connection error code (ENOTFOUND…) or the HTTP status, as reported. */
  code?: string;
  status?: number;
  /** One clause: "cannot reach api.anthropic.com (ENOTFOUND)". */
  summary: string;
  /** What to do about it. */
  fix: string;
}

export interface FailureReport {
  /** The CLI's error text ("API Error: …"), when there is one. */
  text?: string;
  /** The HTTP status the API answered, when it answered. */
  status?: number | null;
  /** The CLI's error kind: the assistant frame's `error` or api_retry's (`unknown` for a connection failure). */
  error?: string;
}

const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'FailedToOpenSocket']);
const REFUSED = new Set(['ECONNREFUSED', 'ConnectionRefused']);
const UNREACHABLE = new Set(['ENETUNREACH', 'ENETDOWN', 'EHOSTUNREACH', 'EHOSTDOWN']);
const PROXY = new Set(['ERR_PROXY_TUNNEL', 'RedirectRefused']);
const TIMEOUT = new Set(['ETIMEDOUT', 'ConnectionIdle', 'StreamNoResponse', 'TIMEOUT']);
const TLS = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(VERIFY|GET)|HOSTNAME_MISMATCH|_VIOLATION|CONSTRAINT/;

/** The error code in the CLI's text: the last `(CODE)` in it. */
export function errorCode(text: string | undefined): string | undefined {
  const all = [...(text ?? '').matchAll(/\(([A-Z][A-Za-z0-9_]{2,})\)/g)];
  return all.length ? all[all.length - 1]![1] : undefined;
}

/** The auth variables set in the agent's environment, in the CLI's order of preference. */
export function credentialNames(env: Record<string, string | undefined>): string[] {
  return ['ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'].filter((k) => env[k]);
}

const where = (ep: ApiEndpoint) => (ep.setBy ? ` (${ep.setBy})` : '');

/** How to give the agent credentials: the same words at start, in doctor and on a failed turn. */
export const LOGIN_FIX =
  'Set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`) in the environment Rudder runs in ' +
  'or in agent.env, or run `claude` once in a terminal as the user Rudder runs as and log in.';

/** A model the endpoint does not serve (404, or the CLI's model_not_found). */
function noSuchModel(ep: ApiEndpoint, status?: number): ApiFailure {
  return {
    cause: 'model',
    ...(status ? { status, code: String(status) } : {}),
    summary: `${ep.url.host} does not serve the model asked for`,
    fix: "Set agent.model (or the project's model) to a model this endpoint serves, or leave it unset for the default.",
  };
}

function byStatus(status: number, ep: ApiEndpoint, credentials: string[]): ApiFailure {
  const host = ep.url.host;
  const creds = credentials.length ? credentials.join(' / ') : 'the CLI login of the agent HOME';
  if (status === 401)
    return {
      cause: 'unauthorized',
      status,
      code: '401',
      summary: `${host} answered 401: it does not accept the credentials (${creds})`,
      fix:
        `Check ${creds}: a key from console.anthropic.com, a token from \`claude setup-token\`, or run \`claude\` ` +
        `and log in again; for a gateway or proxy, the credential it expects.`,
    };
  if (status === 403)
    return {
      cause: 'forbidden',
      status,
      code: '403',
      summary: `${host} answered 403: the credentials (${creds}) are not allowed to do this`,
      fix:
        'The key or login is known but refused: check that its organisation may use Claude Code and the model ' +
        '(agent.model), that an OAuth token was not revoked, and what a gateway in between allows.',
    };
  if (status === 404) return noSuchModel(ep, status);
  if (status === 402) return { ...billing(host), status, code: '402' };
  if (status === 429)
    return {
      cause: 'rate-limited',
      status,
      code: '429',
      summary: `${host} answered 429: rate limited`,
      fix: 'Wait for the limit to reset; the endpoint and the credentials work.',
    };
  if (status >= 500)
    return {
      cause: 'server',
      status,
      code: String(status),
      summary: `${host} answered ${status}${status === 529 ? ' (overloaded)' : ''}: a server-side error`,
      fix: `Usually temporary: try again in a moment; if it persists, check ${ep.serving}${where(ep)}.`,
    };
  return {
    cause: 'other',
    status,
    code: String(status),
    summary: `${host} answered ${status}`,
    fix: `Check ${ep.serving}${where(ep)} and the model (agent.model).`,
  };
}

/** The endpoint's host and port, and the proxy on the way as a person reads it ('' when none). */
function route(ep: ApiEndpoint) {
  const via = ep.proxy ? hostPort(ep.proxy) : undefined;
  return { ...hostPort(ep.url), via, proxyName: via ? `the proxy ${via.host}:${via.port} (${ep.proxyVar})` : '' };
}

/** A name that does not resolve, or a connection refused: the endpoint's, or the proxy's on the way. */
function unresolvedOrRefused(code: string, ep: ApiEndpoint): ApiFailure | undefined {
  const { host, port, via, proxyName } = route(ep);
  if (DNS.has(code))
    return via
      ? {
          cause: 'proxy',
          code,
          summary: `cannot reach ${proxyName}: its name does not resolve (${code})`,
          fix: `Check the host name in ${ep.proxyVar}, or this machine's DNS.`,
        }
      : {
          cause: 'dns',
          code,
          summary: `cannot reach ${host} (${code}): the name does not resolve`,
          fix: ep.setBy
            ? `Check the host name in ${ep.setBy}, or this machine's DNS.`
            : `Check this machine's network and DNS (can it resolve ${host}?), or set HTTPS_PROXY if it needs a proxy.`,
        };
  if (REFUSED.has(code))
    return via
      ? {
          cause: 'proxy',
          code,
          summary: `${proxyName} refused the connection (${code})`,
          fix: `Start the proxy, or fix ${ep.proxyVar} (NO_PROXY lists hosts that go direct).`,
        }
      : {
          cause: 'refused',
          code,
          summary: `${host}:${port} refused the connection (${code})`,
          fix: ep.setBy
            ? `Nothing listens there: start ${ep.serving}, or fix the address in ${ep.setBy}.`
            : 'A firewall refuses the connection: allow it, or set HTTPS_PROXY to the proxy this network needs.',
        };
  return undefined;
}

function byCode(code: string, ep: ApiEndpoint): ApiFailure | undefined {
  const known = unresolvedOrRefused(code, ep);
  if (known) return known;
  const { host, port, via, proxyName } = route(ep);
  if (PROXY.has(code))
    return {
      cause: 'proxy',
      code,
      summary: `${proxyName || 'the proxy'} would not open a connection to ${host} (${code})`,
      fix: `Check the proxy's credentials (in ${ep.proxyVar ?? 'HTTPS_PROXY'}) and that it allows ${host}.`,
    };
  if (UNREACHABLE.has(code))
    return {
      cause: 'unreachable',
      code,
      summary: `no network route to ${via ? proxyName : host} (${code})`,
      fix: 'Check the network connection or VPN of this machine.',
    };
  if (TIMEOUT.has(code))
    return {
      cause: 'timeout',
      code,
      summary: `no answer from ${via ? `${host} through ${proxyName}` : `${host}:${port}`} in time (${code})`,
      fix: `Check that ${ep.serving}${where(ep)} is up and that the network (or proxy) lets the connection through.`,
    };
  if (TLS.test(code))
    return {
      cause: 'tls',
      code,
      summary: `the TLS certificate of ${host} is not trusted (${code})`,
      fix:
        'Behind a TLS-inspecting proxy or a gateway with a private CA, set NODE_EXTRA_CA_CERTS to its CA file ' +
        '(the agent gets it from the environment Rudder starts in).',
    };
  return undefined;
}

function billing(host: string): ApiFailure {
  return {
    cause: 'billing',
    summary: `${host} refused the request for the account's billing (no credit, or a plan that does not cover it)`,
    fix: 'Add credit or a plan to the account (console.anthropic.com, Plans & Billing), or give the agent another key.',
  };
}

/** A failure the CLI names by its kind without an HTTP status (no request was sent, or the status was not kept). */
function byKind(kind: string | undefined, ep: ApiEndpoint, credentials: string[]): ApiFailure | undefined {
  const host = ep.url.host;
  if (kind === 'authentication_failed')
    return credentials.length
      ? byStatus(401, ep, credentials)
      : {
          cause: 'logged-out',
          summary: 'claude has no credentials: no API key is set and it is not logged in',
          fix: LOGIN_FIX,
        };
  if (kind === 'billing_error') return billing(host);
  if (kind === 'model_not_found') return noSuchModel(ep);
  if (kind === 'oauth_org_not_allowed' || kind === 'account_on_hold' || kind === 'verification_required')
    return {
      cause: 'forbidden',
      summary: `${host} refused the account (${kind.replaceAll('_', ' ')})`,
      fix: 'Sign in to claude.ai or console.anthropic.com to settle the account, or give the agent another key.',
    };
  if (kind === 'cloud_credential_error')
    return {
      cause: 'unauthorized',
      summary: 'the cloud provider refused the credentials (Bedrock, Vertex or Foundry)',
      fix: "Check the cloud credentials in the agent's environment (AWS_PROFILE, GOOGLE_APPLICATION_CREDENTIALS…).",
    };
  return undefined;
}

/** The cause of a failed model request; `other` (with the CLI's own words) when nothing more is known. */
export function explainApiFailure(report: FailureReport, ep: ApiEndpoint, credentials: string[] = []): ApiFailure {
  const status = typeof report.status === 'number' ? report.status : undefined;
  if (status !== undefined) return byStatus(status, ep, credentials);
  const code = errorCode(report.text);
  const known = (code ? byCode(code, ep) : undefined) ?? byKind(report.error, ep, credentials);
  if (known) return known;
  const said = (report.text ?? '').replace(/^API Error:\s*/, '').trim();
  return {
    cause: 'other',
    ...(code ? { code } : {}),
    summary: said ? `${ep.url.host}: ${said}` : `no answer from ${ep.url.host} (${report.error ?? 'unknown error'})`,
    fix: `Run \`rudder doctor\`: it sends one request with the agent's environment and names the cause.`,
  };
}
