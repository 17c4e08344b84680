/**
 * The one client for outgoing HTTP (labs now, peer repositories later). It contacts only URLs under
 * the `baseUrl` of a configured lab or peer, never follows redirects, gives up after a timeout and
 * refuses response bodies above a size bound, so a misbehaving remote cannot hang or flood us.
 */
import { ForbiddenError, UpstreamError } from '../errors.ts';

export interface HttpClientOptions {
  /** The base URLs (ending with `/`) that may be contacted. */
  allowedBaseUrls: () => readonly string[];
  maxResponseBytes: number;
}

export interface OutgoingRequest {
  method?: 'GET' | 'POST';
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
}

export interface IncomingResponse {
  status: number;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

export function isUnderBaseUrl(target: URL, baseUrl: string): boolean {
  const base = new URL(baseUrl);
  return target.origin === base.origin && target.pathname.startsWith(base.pathname);
}

export class HttpClient {
  constructor(private readonly options: HttpClientOptions) {}

  async request(url: string, request: OutgoingRequest): Promise<IncomingResponse> {
    const target = new URL(url);
    if (!this.options.allowedBaseUrls().some((base) => isUnderBaseUrl(target, base))) {
      throw new ForbiddenError(`Destination non autorisée : ${target.origin}`);
    }
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    let body: string | undefined;
    if (request.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(request.form).toString();
    } else if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    }
    let response: Response;
    try {
      response = await fetch(target, {
        method: request.method ?? (body === undefined ? 'GET' : 'POST'),
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(request.timeoutMs),
      });
    } catch (error) {
      throw toUpstreamError(error, target, request.timeoutMs);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new UpstreamError('UPSTREAM_UNAVAILABLE', `${target.origin} a répondu par une redirection`);
    }
    let text: string;
    try {
      text = await readBounded(response, this.options.maxResponseBytes);
    } catch (error) {
      throw toUpstreamError(error, target, request.timeoutMs);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json };
  }
}

class ResponseTooLargeError extends Error {}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new ResponseTooLargeError();
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => {});
      throw new ResponseTooLargeError();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function toUpstreamError(error: unknown, target: URL, timeoutMs: number): UpstreamError {
  if (error instanceof ResponseTooLargeError) {
    return new UpstreamError('UPSTREAM_UNAVAILABLE', `Réponse trop volumineuse de ${target.origin}`);
  }
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new UpstreamError('UPSTREAM_TIMEOUT', `${target.origin} n’a pas répondu en ${timeoutMs} ms`);
  }
  return new UpstreamError('UPSTREAM_UNAVAILABLE', `${target.origin} est injoignable`);
}
