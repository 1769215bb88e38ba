/**
 * Where the agent's Claude Code sends its model requests, read from the agent's environment the
 * way the CLI reads it: a cloud provider when its switch is on, else ANTHROPIC_BASE_URL, else the
 * public API; and the proxy the request goes through, if any (HTTPS_PROXY…, minus NO_PROXY).
 */
import { switchOn } from './env-vars.js';

export const PUBLIC_API = 'https://api.anthropic.com';

export interface ApiEndpoint {
  /** The base URL requests go to. */
  url: URL;
  /** Who serves it, for messages: "the Anthropic API", "Amazon Bedrock", "an endpoint set by ANTHROPIC_BASE_URL". */
  serving: string;
  /** The variable that chose the URL, when one did. */
  setBy?: string;
  /** The proxy the request goes through, when one applies. */
  proxy?: URL;
  /** The variable that names the proxy. */
  proxyVar?: string;
}

function parse(url: string | undefined): URL | undefined {
  if (!url) return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function provider(env: Record<string, string | undefined>): Omit<ApiEndpoint, 'proxy' | 'proxyVar'> {
  const from = (name: string, fallback: string, serving: string) => {
    const set = parse(env[name]);
    return set ? { url: set, serving, setBy: name } : { url: new URL(fallback), serving };
  };
  if (switchOn(env.CLAUDE_CODE_USE_BEDROCK)) {
    const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
    return from('ANTHROPIC_BEDROCK_BASE_URL', `https://bedrock-runtime.${region}.amazonaws.com`, 'Amazon Bedrock');
  }
  if (switchOn(env.CLAUDE_CODE_USE_VERTEX)) {
    const region = env.CLOUD_ML_REGION || 'us-east5';
    const host = region === 'global' ? 'aiplatform.googleapis.com' : `${region}-aiplatform.googleapis.com`;
    return from('ANTHROPIC_VERTEX_BASE_URL', `https://${host}`, 'Google Vertex AI');
  }
  if (switchOn(env.CLAUDE_CODE_USE_FOUNDRY)) {
    const resource = env.ANTHROPIC_FOUNDRY_RESOURCE || 'resource';
    return from('ANTHROPIC_FOUNDRY_BASE_URL', `https://${resource}.services.ai.azure.com`, 'Microsoft Foundry');
  }
  const set = parse(env.ANTHROPIC_BASE_URL);
  return set
    ? { url: set, serving: 'the endpoint ANTHROPIC_BASE_URL names', setBy: 'ANTHROPIC_BASE_URL' }
    : { url: new URL(PUBLIC_API), serving: 'the Anthropic API' };
}

/** Whether NO_PROXY exempts a host: `*`, an exact name, or a domain suffix (`.example.com` or `example.com`). */
function exempt(host: string, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  return noProxy
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((entry) => {
      const name = entry.replace(/:\d+$/, '').replace(/^\*?\./, '');
      return entry === '*' || host === name || host.endsWith(`.${name}`);
    });
}

function proxyFor(url: URL, env: Record<string, string | undefined>): Pick<ApiEndpoint, 'proxy' | 'proxyVar'> {
  if (exempt(url.hostname, env.NO_PROXY ?? env.no_proxy)) return {};
  const names =
    url.protocol === 'https:'
      ? ['HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy']
      : ['HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'];
  for (const name of names) {
    const proxy = parse(env[name]);
    if (proxy) return { proxy, proxyVar: name };
  }
  return {};
}

export function apiEndpoint(env: Record<string, string | undefined>): ApiEndpoint {
  const p = provider(env);
  return { ...p, ...proxyFor(p.url, env) };
}

/** host:port as a connection needs it (the scheme's port when the URL has none). */
export function hostPort(url: URL): { host: string; port: number } {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
}
