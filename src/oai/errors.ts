/** The error conditions of OAI-PMH 2.0 (§3.6), each answered with HTTP 200 and an `<error>` element. */
export type OaiErrorCode =
  | 'badArgument'
  | 'badResumptionToken'
  | 'badVerb'
  | 'cannotDisseminateFormat'
  | 'idDoesNotExist'
  | 'noRecordsMatch'
  | 'noMetadataFormats'
  | 'noSetHierarchy';

export interface OaiError {
  code: OaiErrorCode;
  message: string;
}

export const oaiError = (code: OaiErrorCode, message: string): OaiError => ({ code, message });

/**
 * §3.2: after badVerb or badArgument the `request` element carries the base URL only, since the
 * arguments could not all be understood; after any other error it echoes them.
 */
export const echoesArguments = (errors: readonly OaiError[]) =>
  !errors.some((error) => error.code === 'badVerb' || error.code === 'badArgument');
