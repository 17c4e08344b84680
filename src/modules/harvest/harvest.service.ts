/**
 * What OAI-PMH harvesters may read (src/oai/ asks through the harvest root fields): the harvest
 * entries of the read model (src/read-model/harvest.ts), checked against the harvest rule of the
 * resources' policy, with their sets named as the protocol writes them. Anyone may harvest: every
 * record is something an anonymous caller may read.
 */
import type { Config } from '../../config.ts';
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
import { ridOf } from '../resources/resources.repository.ts';
import { CATEGORIES, LEVELS, RESOURCE_TYPES } from '../resources/vocabulary.ts';
// A value outside the setSpec syntax cannot be a set (a level `a|b` is in none).
import { SET_SPEC } from './set-spec.ts';

export const DEFAULT_HARVEST_PAGE = 100;
export const MAX_HARVEST_PAGE = 1000;

export interface HarvestResourceView
  extends Omit<HarvestMetadata, 'publie' | 'restriction' | 'indexable' | 'aliasOf'> {
  oid: number;
  /** `<baseId>/<oid>`. */
  rid: string;
  /** Its public page in this service: `<baseUrl>/api/public/<oid>`. */
  publicUrl: string;
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

/** What names this repository's resources to harvesters (the configuration's). */
export type HarvestSite = Pick<Config, 'baseId' | 'baseUrl'>;

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

/**
 * The set a spec names. Sets are a hierarchy (OAI-PMH §2.6: a colon separates a set from its
 * parent): `type`, `niveau` and `categorie` hold every record in one of their children
 * (`type:<type>`, `niveau:<level>`, `categorie:<id>`). A well-formed spec of no set of ours (an
 * unknown kind, a category that is not a number) names a set without records, as a set that may
 * exist later would be: null. Only a malformed spec is an error.
 */
function parseSet(spec: string): HarvestSetFilter | null {
  if (!SET_SPEC.test(spec)) {
    throw new InvalidInputError(`Ensemble ${spec} invalide : type:<type>, niveau:<niveau> ou categorie:<id>`);
  }
  const [kind, value, ...deeper] = spec.split(':') as [string, ...string[]];
  if (deeper.length > 0) return null;
  const parent = value === undefined;
  if (kind === 'type') return parent ? { kind: 'anyType' } : { kind: 'type', value };
  if (kind === 'niveau') return parent ? { kind: 'anyLevel' } : { kind: 'level', value };
  if (kind !== 'categorie') return null;
  if (parent) return { kind: 'anyCategory' };
  const id = parseId(value);
  return id === undefined ? null : { kind: 'category', value: id };
}

/** Datestamps are whole seconds: a bound is taken to its second. */
const toSecond = (value: Date) => new Date(Math.floor(value.getTime() / 1000) * 1000);

/**
 * The filter of a selection, or null when it selects nothing whatever the records (a set that is
 * not ours); throws InvalidInputError for a malformed set or bounds out of order.
 */
function filterOf(args: HarvestSelectionArgs): HarvestFilter | null {
  const filter: HarvestFilter = {};
  if (args.from) filter.from = toSecond(args.from);
  if (args.until) filter.until = toSecond(args.until);
  if (filter.from && filter.until && filter.from > filter.until) {
    throw new InvalidInputError('from est postérieur à until');
  }
  if (args.set == null) return filter;
  const set = parseSet(args.set);
  return set && { ...filter, set };
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

/** A resource's public page in this service (`/api/public/<oid>`, the read anyone may make). */
const publicUrlOf = (baseUrl: string, oid: number) => `${baseUrl.replace(/\/+$/, '')}/api/public/${oid}`;

/**
 * The record of an entry: its metadata only when the resources' policy says the resource is
 * harvestable, whatever the read model gave (it checks the same rule in SQL; each check holds alone).
 */
export function harvestRecordOf(row: HarvestRow, site: HarvestSite): HarvestRecordView {
  const metadata = row.metadata && isHarvestable(row.metadata) ? row.metadata : null;
  let resource: HarvestResourceView | null = null;
  if (metadata) {
    const { publie: _p, restriction: _r, indexable: _i, aliasOf: _a, parametres, ...fields } = metadata;
    resource = {
      ...fields,
      parametres,
      oid: row.oid,
      rid: ridOf(site.baseId, row.oid),
      publicUrl: publicUrlOf(site.baseUrl, row.oid),
      address: addressOf(fields.type, parametres),
    };
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
  site: HarvestSite,
): Promise<{ records: HarvestRecordView[]; hasMore: boolean }> {
  const limit = args.limit ?? DEFAULT_HARVEST_PAGE;
  if (limit < 1 || limit > MAX_HARVEST_PAGE) {
    throw new InvalidInputError(`limit doit être compris entre 1 et ${MAX_HARVEST_PAGE}`);
  }
  const after = args.after ?? 0;
  if (after < 0) throw new InvalidInputError('after doit être positif');
  const filter = filterOf(args);
  if (!filter) return { records: [], hasMore: false };
  // One more than the page tells whether another follows, in the same statement.
  const rows = await readHarvestPage(filter, { after, limit: limit + 1, withMetadata: args.withMetadata });
  const records = rows.slice(0, limit).map((row) => harvestRecordOf(row, site));
  return { records, hasMore: rows.length > limit };
}

export async function harvestCount(args: HarvestSelectionArgs): Promise<number> {
  const filter = filterOf(args);
  return filter ? countHarvestEntries(filter) : 0;
}

/** The record of `oid` (deleted or not), or null when it was never exposed. */
export async function harvestRecord(oid: number, site: HarvestSite): Promise<HarvestRecordView | null> {
  const row = await readHarvestRecord(oid);
  return row && harvestRecordOf(row, site);
}

export const harvestEarliestDatestamp = (): Promise<Date | null> => earliestHarvestDatestamp();

/** Every set, named from the vocabularies (those whose ids make no setSpec left out), parents first. */
export function harvestSets(): HarvestSetView[] {
  return [
    { spec: 'type', name: 'Types de ressource' },
    { spec: 'niveau', name: 'Niveaux' },
    { spec: 'categorie', name: 'Catégories' },
    ...Object.entries(RESOURCE_TYPES).map(([id, label]) => ({ spec: `type:${id}`, name: `Type : ${label}` })),
    ...Object.entries(LEVELS).map(([id, label]) => ({ spec: `niveau:${id}`, name: `Niveau : ${label}` })),
    ...Object.entries(CATEGORIES).map(([id, label]) => ({
      spec: `categorie:${id}`,
      name: `Catégorie : ${label}`,
    })),
  ].filter((set) => SET_SPEC.test(set.spec));
}
