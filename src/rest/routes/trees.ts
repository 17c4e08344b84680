/** Legacy tree route (API document, `GET /api/jstree`; compatibility notes §7). */
import { ref } from '../api-schemas.ts';
import { type LegacyRoute, text } from '../route-table.ts';

export const treeRoutes: LegacyRoute[] = [
  {
    method: 'get',
    paths: ['/api/jstree'],
    operation: 'Jstree',
    variables: ({ query }) => ({
      ref: text(query.ref ?? query.rid ?? query.aliasOf ?? query.id ?? query.oid) ?? '',
      childrenOnly: ['1', 'true'].includes(text(query.children) ?? ''),
    }),
    shape: (result) => ({ nodes: result.data }),
    // jstree reads a bare array of nodes, and shows a failure as a node of its own: with a 200, since
    // jstree treats any other status as a load failure and shows nothing.
    respond: ({ body }) => ({
      status: 200,
      body: body.success ? body.nodes : [{ text: `Erreur : ${body.error}` }],
    }),
    doc: {
      summary: 'A tree in jstree format',
      description:
        'A bare array of nodes; a failure is a single node whose text is the error, still with 200.',
      query: {
        ref: { type: 'string', description: 'oid or origine/idOrigine (also `rid`, `aliasOf`, `id`, `oid`)' },
        children: { enum: ['1', 'true'], description: 'only the children' },
      },
      responses: { 200: { type: 'array', items: ref('JstreeNode') } },
      noDerivedErrors: true,
    },
  },
];
