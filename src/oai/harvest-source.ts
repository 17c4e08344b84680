/**
 * What the OAI-PMH data provider (src/oai/) needs from the repository, and nothing more. The
 * protocol layer (arguments, errors, resumption tokens, XML) is written against this interface; the
 * implementation runs named GraphQL operations through the same Yoga pipeline as REST, so what a
 * harvester sees is decided by the gateway's resolvers and permission rules alone.
 *
 * Exposed ("harvestable"): what an anonymous caller may read and what searches list — public
 * (restriction 0), published, indexable, and not an alias (an alias stands for a resource of another
 * repository, harvested from there; listing it here too would give aggregators the same record twice
 * under two identifiers). Everything that was once exposed and is not any more is a deleted record
 * (`deletedRecord: persistent`) with the datestamp of the change that removed it.
 */
import type { HarvestMetadataFieldsFragment, HarvestPersonFragment } from './operations.generated.ts';

/** A record's header: every record has one; a deleted record has nothing else. */
export interface HarvestHeader {
  oid: number;
  /**
   * The last change that matters to a harvester (content, publication, visibility): ISO 8601 text in
   * UTC, as the DateTime scalar serializes it (responses write it to the second).
   */
  datestamp: string;
  deleted: boolean;
  /**
   * The sets it belongs to (`type:<type>`, `niveau:<level>`, `categorie:<id>`). A deleted record
   * keeps those it was in when last exposed, so that a harvest of a set is told of its deletions.
   */
  setSpecs: string[];
}

/** An author or contributor, as a harvester may see them (never an e-mail address). */
export type HarvestPerson = HarvestPersonFragment;

/**
 * The metadata of an exposed resource: everything the `oai_dc` and `lom` formats are made from, and
 * nothing more. It is what the HarvestMetadataFields fragment of operations.graphql selects, typed by
 * the code generated from it (the fields' meanings are the schema's: `HarvestResource` in
 * schema.graphql), so a field a format needs is added to the fragment alone. `dateMiseAJour` is left
 * out on purpose: the harvest entries' triggers do not restamp a record when it alone changes (every
 * save moves it), so a format that showed it would need them to (docs/oai-pmh.md, "Datestamps").
 */
export type HarvestResource = HarvestMetadataFieldsFragment;

export interface HarvestRecord {
  header: HarvestHeader;
  /** Null when the record is deleted, or when only headers were asked for. */
  resource: HarvestResource | null;
}

/** A selective harvest: every bound optional, `from` and `until` inclusive, to the second. */
export interface HarvestSelection {
  from?: Date;
  until?: Date;
  /** A set spec; a record is in a set when one of its set specs equals it. */
  set?: string;
}

export interface HarvestPageRequest extends HarvestSelection {
  /**
   * The keyset: records come in oid order, and a page starts after this oid. Ordering by oid (the
   * datestamp being a filter) is what keeps a harvest exact while resources change during it: an
   * updated resource keeps its place, so it is neither met twice nor skipped, and a new one comes
   * at the end.
   */
  afterOid?: number;
  limit: number;
  /** Whether the metadata is wanted (ListRecords) or the headers only (ListIdentifiers). */
  withMetadata: boolean;
}

export interface HarvestSet {
  spec: string;
  name: string;
}

export interface HarvestSource {
  /** The oldest datestamp held (records and tombstones), or null on an empty repository. */
  earliestDatestamp(): Promise<string | null>;
  /** Every set, named from the vocabularies. */
  sets(): Promise<HarvestSet[]>;
  /** One page, in oid order; `hasMore` tells whether a record follows it. */
  page(request: HarvestPageRequest): Promise<{ records: HarvestRecord[]; hasMore: boolean }>;
  /** How many records the selection holds now (for `completeListSize`). */
  count(selection: HarvestSelection): Promise<number>;
  /** One record (deleted or not) with its metadata, or null when this oid was never exposed. */
  record(oid: number): Promise<HarvestRecord | null>;
}

/** A metadata format the provider disseminates (`oai_dc`, `lom`). */
export interface MetadataFormat {
  metadataPrefix: string;
  /** The XML Schema's address, as ListMetadataFormats gives it. */
  schema: string;
  metadataNamespace: string;
  /** The element that goes inside `<metadata>`, with its namespace declarations and schemaLocation. */
  render(resource: HarvestResource): string;
}
