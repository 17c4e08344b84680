/**
 * Resumption tokens (§3.5), stateless: the harvest's arguments and its position, signed. Any
 * instance sharing the secret resumes any harvest, nothing is stored, and a token cannot be forged
 * or altered (a harvester could otherwise page through a selection it did not ask for, or make us
 * parse anything). The position is a keyset (the last oid sent), never an offset: see
 * HarvestPageRequest.afterOid.
 *
 * Form: `<payload>.<mac>`, both base64url; payload the JSON below, mac its HMAC-SHA256 under a key
 * derived (HKDF) from the service secret for this use alone, so a token is worth nothing as
 * anything else the secret signs (session cookies) and the other way round.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

export type ListVerb = 'ListIdentifiers' | 'ListRecords';

export interface TokenState {
  verb: ListVerb;
  metadataPrefix: string;
  /** Inclusive bounds, epoch milliseconds (already widened from a day to its seconds). */
  from?: number;
  until?: number;
  set?: string;
  /** The oid the next page starts after. */
  afterOid: number;
  /** Records sent before the page this token asks for (the `cursor` of its answer). */
  cursor: number;
  completeListSize: number;
  /** Epoch milliseconds after which the token is refused. */
  expires: number;
}

const payloadSchema = z
  .object({
    v: z.literal(1),
    verb: z.enum(['ListIdentifiers', 'ListRecords']),
    prefix: z.string().min(1),
    from: z.number().int().optional(),
    until: z.number().int().optional(),
    set: z.string().min(1).optional(),
    after: z.number().int().min(0),
    cursor: z.number().int().min(0),
    size: z.number().int().min(0),
    exp: z.number().int(),
  })
  .strict();

const BASE64URL = /^[A-Za-z0-9_-]+$/;

export class ResumptionTokens {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', secret, '', 'oai-pmh resumption token v1', 32));
  }

  #mac(payload: string): Buffer {
    return createHmac('sha256', this.#key).update(payload).digest();
  }

  issue(state: TokenState): string {
    const payload = Buffer.from(
      JSON.stringify({
        v: 1,
        verb: state.verb,
        prefix: state.metadataPrefix,
        from: state.from,
        until: state.until,
        set: state.set,
        after: state.afterOid,
        cursor: state.cursor,
        size: state.completeListSize,
        exp: state.expires,
      }),
    ).toString('base64url');
    return `${payload}.${this.#mac(payload).toString('base64url')}`;
  }

  /** The state a token carries, or why it is refused (the text of a badResumptionToken error). */
  read(token: string, now: Date): { state: TokenState } | { refused: string } {
    const parts = token.split('.');
    if (parts.length !== 2 || !parts.every((part) => BASE64URL.test(part))) {
      return { refused: 'The resumptionToken is not one this repository issued.' };
    }
    const [payload, mac] = parts as [string, string];
    const expected = this.#mac(payload);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { refused: 'The resumptionToken is not one this repository issued, or it was altered.' };
    }
    let parsed: z.infer<typeof payloadSchema>;
    try {
      parsed = payloadSchema.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    } catch {
      // Signed by us yet unreadable: written by another version of this code.
      return { refused: 'The resumptionToken is of a form this repository no longer reads.' };
    }
    if (parsed.exp <= now.getTime()) {
      return { refused: 'The resumptionToken has expired: start the harvest again.' };
    }
    return {
      state: {
        verb: parsed.verb,
        metadataPrefix: parsed.prefix,
        ...(parsed.from === undefined ? {} : { from: parsed.from }),
        ...(parsed.until === undefined ? {} : { until: parsed.until }),
        ...(parsed.set === undefined ? {} : { set: parsed.set }),
        afterOid: parsed.after,
        cursor: parsed.cursor,
        completeListSize: parsed.size,
        expires: parsed.exp,
      },
    };
  }
}
