/**
 * A HarvestSource over records held in memory, faithful to the contract (src/oai/harvest-source.ts):
 * oid order, a page starting after `afterOid`, `from` and `until` inclusive to the second, a record in
 * a set when one of its set specs equals it, deleted records as headers without metadata. Tests of
 * the protocol layer change it between requests (`put`, `remove`) as writes would.
 */
import type {
  HarvestPageRequest,
  HarvestRecord,
  HarvestResource,
  HarvestSelection,
  HarvestSet,
  HarvestSource,
} from '../../src/oai/harvest-source.ts';

const second = (date: Date | string) => Math.floor(new Date(date).getTime() / 1000);

export interface MemoryRecord {
  oid: number;
  datestamp: Date;
  deleted?: boolean;
  setSpecs?: string[];
  /** Only what a test's format reads; completed from defaults. */
  resource?: Partial<HarvestResource>;
}

export function resourceOf(oid: number, fields: Partial<HarvestResource> = {}): HarvestResource {
  return {
    oid,
    rid: `repo/${oid}`,
    titre: `Ressource ${oid}`,
    resume: '',
    description: '',
    langue: 'fra',
    type: 'url',
    niveaux: [],
    categories: [],
    typePedagogiques: [],
    typeDocumentaires: [],
    dateCreation: '2026-01-01T00:00:00.000Z',
    licence: null,
    adresse: null,
    publicUrl: `http://repo.test/api/public/${oid}`,
    authors: [],
    contributors: [],
    ...fields,
  };
}

export class MemoryHarvestSource implements HarvestSource {
  readonly #records = new Map<number, HarvestRecord>();
  /** What each method was asked, in order: a test sees that a page was read with a keyset. */
  readonly calls: { method: string; argument: unknown }[] = [];

  constructor(
    records: MemoryRecord[] = [],
    readonly setList: HarvestSet[] = [],
  ) {
    for (const record of records) this.put(record);
  }

  put(record: MemoryRecord): void {
    const deleted = record.deleted ?? false;
    this.#records.set(record.oid, {
      header: {
        oid: record.oid,
        datestamp: record.datestamp.toISOString(),
        deleted,
        setSpecs: deleted ? [] : (record.setSpecs ?? []),
      },
      resource: deleted ? null : resourceOf(record.oid, record.resource),
    });
  }

  /** A tombstone: the record stays, as a deleted header with the datestamp of its removal. */
  remove(oid: number, datestamp: Date): void {
    this.put({ oid, datestamp, deleted: true });
  }

  #selected(selection: HarvestSelection): HarvestRecord[] {
    return [...this.#records.values()]
      .filter(({ header }) => {
        if (selection.from && second(header.datestamp) < second(selection.from)) return false;
        if (selection.until && second(header.datestamp) > second(selection.until)) return false;
        if (selection.set !== undefined && !header.setSpecs.includes(selection.set)) return false;
        return true;
      })
      .sort((a, b) => a.header.oid - b.header.oid);
  }

  async earliestDatestamp(): Promise<string | null> {
    this.calls.push({ method: 'earliestDatestamp', argument: undefined });
    const times = [...this.#records.values()].map(({ header }) => Date.parse(header.datestamp));
    return times.length === 0 ? null : new Date(Math.min(...times)).toISOString();
  }

  async sets(): Promise<HarvestSet[]> {
    this.calls.push({ method: 'sets', argument: undefined });
    return this.setList;
  }

  async page(request: HarvestPageRequest): Promise<{ records: HarvestRecord[]; hasMore: boolean }> {
    this.calls.push({ method: 'page', argument: request });
    const after = this.#selected(request).filter(({ header }) => header.oid > (request.afterOid ?? 0));
    const records = after.slice(0, request.limit).map((record) => ({
      header: { ...record.header, setSpecs: [...record.header.setSpecs] },
      resource: request.withMetadata ? record.resource : null,
    }));
    return { records, hasMore: after.length > request.limit };
  }

  async count(selection: HarvestSelection): Promise<number> {
    this.calls.push({ method: 'count', argument: selection });
    return this.#selected(selection).length;
  }

  async record(oid: number): Promise<HarvestRecord | null> {
    this.calls.push({ method: 'record', argument: oid });
    return this.#records.get(oid) ?? null;
  }
}
