/** Legacy tree route (API document, `GET /api/jstree`; compatibility notes §7). */
import { ref } from '../../legacy/json-schemas.ts';
import { FLAG_VALUES, type LegacyRoute, oneOf, text } from '../route-table.ts';

export const treeRoutes: LegacyRoute[] = [
  {
    method: 'get',
    paths: ['/api/jstree'],
    operation: 'Jstree',
    variables: (parts) => {
      const { query } = parts;
      const childrenOnly = oneOf(
        parts,
        'children',
        query.children,
        FLAG_VALUES,
        '0',
        'the whole tree (the default)',
      );
      return {
        ref: text(query.ref ?? query.rid ?? query.aliasOf ?? query.id ?? query.oid) ?? '',
        childrenOnly: ['1', 'true'].includes(childrenOnly),
      };
    },
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
        children: {
          enum: FLAG_VALUES,
          description: 'only the children (1, true); another value: the whole tree, with a `Warning`',
        },
      },
      ignored: 'a `children` other than 1, true, 0, false',
      responses: { 200: { type: 'array', items: ref('JstreeNode') } },
      noDerivedErrors: true,
    },
  },
];
