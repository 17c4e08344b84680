/**
 * The OAI-PMH data provider as the service serves it (docs/oai-pmh.md): public XML for harvesters,
 * the same for every caller, so no session, no credentials and any origin. Each request's source
 * runs the harvest operations in that request's server context, as REST does: the gateway decides
 * what is exposed.
 */
import type { Express } from 'express';
import type { OperationRunner } from '../gateway/operation-runner.ts';
import { allowCrossOriginReads } from '../http/security-headers.ts';
import { metadataFormats } from './formats/index.ts';
import { createGraphQLHarvestSource } from './graphql-source.ts';
import { createOaiRouter, OAI_PATH } from './router.ts';
import type { OaiSettings } from './settings.ts';

/** `runHarvestOperation` runs the harvest operations (src/oai/operations.graphql) in a request's context. */
export function mountOai(app: Express, settings: OaiSettings, runHarvestOperation: OperationRunner): void {
  // Mounted on its path: other requests pass it at the cost of one match (src/http/layers.ts).
  app.use(
    OAI_PATH,
    (_req, res, next) => {
      allowCrossOriginReads(res);
      next();
    },
    createOaiRouter({
      source: (req, res) =>
        createGraphQLHarvestSource((name, variables) => runHarvestOperation(name, variables, { req, res })),
      formats: metadataFormats({ repositoryIdentifier: settings.repositoryIdentifier }),
      settings,
    }),
  );
}
