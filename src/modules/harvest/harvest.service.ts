/**
 * What OAI-PMH harvesters may read (src/oai/ asks through the harvest root fields): the harvest
 * entries of the read model (src/read-model/harvest.ts), checked against the harvest rule of the
 * resources' policy, with their sets named as the protocol writes them. Anyone may harvest: every
 * record is something an anonymous caller may read.
 */
import { InvalidInputError } from '../../errors.ts';
import { parseId } from '../../lib/integers.ts';
import {
  countHarvestEntries,
  earliestHarvestDatestamp,
  type HarvestFilter,
  type HarvestMetadata,
  type HarvestPerson,
  type HarvestRow,
  type HarvestSetFilter,
  readHarvestPage,
  readHarvestRecord,
} from '../../read-model/harvest.ts';
import { isHarvestable } from '../resources/resources.policy.ts';
import { CATEGORIES, LEVELS, RESOURCE_TYPES } from '../resources/vocabulary.ts';

export const DEFAULT_HARVEST_PAGE = 100;
export const MAX_HARVEST_PAGE = 1000;

/** OAI-PMH's setSpec syntax: a value outside it cannot be a set (a level `a|b` is in none). */
const SET_SPEC = /^[A-Za-z0-9\-_.!~*'()]+(:[A-Za-z0-9\-_.!~*'()]+)*$/;

export interface HarvestResourceView
  extends Omit<HarvestMetadata, 'publie' | 'restriction' | 'indexable' | 'aliasOf'> {
  oid: number;
  /** An `url` resource's http(s) address, else null. */
  address: string | null;
  authors: HarvestPerson[];
  contributors: HarvestPerson[];
}

export interface HarvestRecordView {
  oid: number;
  datestamp: Date;
  deleted: boolean;
  setSpecs: string[];
  resource: HarvestResourceView | null;
}

export interface HarvestSetView {
  spec: string;
  name: string;
}

export interface HarvestSelectionArgs {
  from?: Date | null;
  until?: Date | null;
  set?: string | null;
}

export interface HarvestPageArgs extends HarvestSelectionArgs {
  after?: number | null;
  limit?: number | null;
  withMetadata: boolean;
}

/** `type:<type>`, `niveau:<level>`, `categorie:<id>`, or an error naming the spec. */
function parseSet(spec: string): HarvestSetFilter {
  const match = /^(type|niveau|categorie):(.+)$/.exec(spec);
  if (!match || !SET_SPEC.test(spec)) {
    throw new InvalidInputError(`Ensemble ${spec} invalide : type:<type>, niveau:<niveau> ou categorie:<id>`);
  }
  const [, kind, value] = match as unknown as [string, string, string];
  if (kind === 'type') return { kind: 'type', value };
  if (kind === 'niveau') return { kind: 'level', value };
  const id = parseId(value);
  if (id === undefined) throw new InvalidInputError(`Catégorie ${value} invalide dans l’ensemble ${spec}`);
  return { kind: 'category', value: id };
}

/** Datestamps are whole seconds: a bound is taken to its second. */
const toSecond = (value: Date) => new Date(Math.floor(value.getTime() / 1000) * 1000);

/** The filter of a selection; throws InvalidInputError for a bad set or bounds out of order. */
function filterOf(args: HarvestSelectionArgs): HarvestFilter {
  const filter: HarvestFilter = {};
  if (args.from) filter.from = toSecond(args.from);
  if (args.until) filter.until = toSecond(args.until);
  if (filter.from && filter.until && filter.from > filter.until) {
    throw new InvalidInputError('from est postérieur à until');
  }
  if (args.set != null) filter.set = parseSet(args.set);
  return filter;
}

const setSpecsOf = (row: HarvestRow) =>
  [
    `type:${row.type}`,
    ...row.levels.map((level) => `niveau:${level}`),
    ...row.categories.map((category) => `categorie:${category}`),
  ].filter((spec) => SET_SPEC.test(spec));

/** An `url` resource's `parametres.adresse` when it is an http(s) URL. */
function addressOf(type: string, parametres: unknown): string | null {
  if (type !== 'url' || typeof parametres !== 'object' || parametres === null) return null;
  const address = (parametres as { adresse?: unknown }).adresse;
  if (typeof address !== 'string') return null;
  try {
    const { protocol } = new URL(address);
    return protocol === 'http:' || protocol === 'https:' ? address : null;
  } catch {
    return null;
  }
}

function toRecord(row: HarvestRow): HarvestRecordView {
  const metadata = row.metadata && isHarvestable(row.metadata) ? row.metadata : null;
  let resource: HarvestResourceView | null = null;
  if (metadata) {
    const { publie: _p, restriction: _r, indexable: _i, aliasOf: _a, parametres, ...fields } = metadata;
    resource = { ...fields, parametres, oid: row.oid, address: addressOf(fields.type, parametres) };
  }
  return {
    oid: row.oid,
    datestamp: row.datestamp,
    // Metadata asked for and refused by the rule: the record is withdrawn, whatever the entry says.
    deleted: row.deleted || (row.metadata !== null && metadata === null),
    setSpecs: setSpecsOf(row),
    resource,
  };
}

/** One page in oid order after `after`, and whether a record follows it; InvalidInputError for bad arguments. */
export async function harvestPage(
  args: HarvestPageArgs,
): Promise<{ records: HarvestRecordView[]; hasMore: boolean }> {
  const limit = args.limit ?? DEFAULT_HARVEST_PAGE;
  if (limit < 1 || limit > MAX_HARVEST_PAGE) {
    throw new InvalidInputError(`limit doit être compris entre 1 et ${MAX_HARVEST_PAGE}`);
  }
  const after = args.after ?? 0;
  if (after < 0) throw new InvalidInputError('after doit être positif');
  const filter = filterOf(args);
  // One more than the page tells whether another follows, in the same statement.
  const rows = await readHarvestPage(filter, { after, limit: limit + 1, withMetadata: args.withMetadata });
  return { records: rows.slice(0, limit).map(toRecord), hasMore: rows.length > limit };
}

export async function harvestCount(args: HarvestSelectionArgs): Promise<number> {
  return countHarvestEntries(filterOf(args));
}

/** The record of `oid` (deleted or not), or null when it was never exposed. */
export async function harvestRecord(oid: number): Promise<HarvestRecordView | null> {
  const row = await readHarvestRecord(oid);
  return row && toRecord(row);
}

export const harvestEarliestDatestamp = (): Promise<Date | null> => earliestHarvestDatestamp();

/** Every set, named from the vocabularies (those whose ids make no setSpec left out). */
export function harvestSets(): HarvestSetView[] {
  return [
    ...Object.entries(RESOURCE_TYPES).map(([id, label]) => ({ spec: `type:${id}`, name: `Type : ${label}` })),
    ...Object.entries(LEVELS).map(([id, label]) => ({ spec: `niveau:${id}`, name: `Niveau : ${label}` })),
    ...Object.entries(CATEGORIES).map(([id, label]) => ({
      spec: `categorie:${id}`,
      name: `Catégorie : ${label}`,
    })),
  ].filter((set) => SET_SPEC.test(set.spec));
}
