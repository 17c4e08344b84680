/**
 * The GraphiQL page, rendered once (9 MB of inline HTML: rendering it per visit cost every visit),
 * and its Content-Security-Policy. The page's scripts are inline, so the policy allows exactly
 * those scripts by their SHA-256 digests: no other script, inline or from elsewhere, can run in the
 * page, and only this service may frame it.
 */
import { createHash } from 'node:crypto';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { GraphiQLOptions } from 'graphql-yoga';

export interface GraphiQLPage {
  /** The options Yoga renders the page with. */
  options: GraphiQLOptions;
  html(): string;
  contentSecurityPolicy(): string;
}

function inlineScriptDigests(html: string): string[] {
  const digests: string[] = [];
  for (const match of html.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
    digests.push(`'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`);
  }
  return digests;
}

export function graphiqlPage(options: GraphiQLOptions): GraphiQLPage {
  let rendered: { html: string; policy: string } | undefined;
  const render = () => {
    if (!rendered) {
      const html = renderGraphiQL(options);
      const policy = [
        "default-src 'self'",
        `script-src 'self' ${inlineScriptDigests(html).join(' ')}`,
        // The editor injects its styles at run time; styles cannot run code.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        // The editor's language services run in workers created from blobs.
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'self'",
      ].join('; ');
      rendered = { html, policy };
    }
    return rendered;
  };
  return {
    options,
    html: () => render().html,
    contentSecurityPolicy: () => render().policy,
  };
}
