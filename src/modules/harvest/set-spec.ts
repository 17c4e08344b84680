/**
 * OAI-PMH's setSpec syntax (OAI-PMH.xsd setSpecType): URI unreserved characters, a colon between a
 * set and its child. The harvest fields refuse a set outside it; the protocol layer answers one
 * with badArgument before asking them.
 */
export const SET_SPEC = /^[A-Za-z0-9\-_.!~*'()]+(:[A-Za-z0-9\-_.!~*'()]+)*$/;
