/** The metadata formats the OAI-PMH provider disseminates, in the order ListMetadataFormats gives them. */
import type { MetadataFormat } from '../harvest-source.ts';
import { createLomFormat, type LomOptions } from './lom.ts';
import { oaiDcFormat } from './oai-dc.ts';

export { createLomFormat, type LomOptions } from './lom.ts';
export { oaiDcFormat } from './oai-dc.ts';

/** `oai_dc` (required by the protocol) and `lom`; the LOM records need the repository identifier. */
export function metadataFormats(options: LomOptions): MetadataFormat[] {
  return [oaiDcFormat, createLomFormat(options)];
}
