import Type from 'typebox';
import { docOnly, Timestamp } from './common.js';

/**
 * The back office's operators beyond their creation (`CreateOperatorBody` in admin.ts): the list,
 * the role and whether they may sign in.
 */

const Role = Type.Unsafe<'admin' | 'support'>({ type: 'string', enum: ['admin', 'support'], description: '`admin`: everything; `support`: reads, appeals, resend', 'x-message': 'must be admin or support' });

export const OperatorWithAccess = Type.Object(
  {
    id: Type.String({ description: '`opr_` id' }),
    email: Type.String(docOnly({ format: 'email' })),
    role: Type.String(),
    disabled: Type.Boolean({ description: 'a disabled operator cannot sign in; their sessions ended when they were disabled' }),
    createdAt: Timestamp,
  },
  { title: 'Operator' },
);

export const ListOperatorsQuery = Type.Object({
  before: Type.Optional(Type.String({ description: 'the `next` of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100, description: '1–500, default 100', 'x-message': 'must be an integer from 1 to 500' })),
});

export const PatchOperatorBody = Type.Object(
  {
    role: Type.Optional(Role),
    disabled: Type.Optional(Type.Boolean({ description: '`true` disables the operator and ends their sessions; `false` lets them sign in again' })),
  },
  { title: 'PatchOperatorRequest' },
);

export const OperatorIdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: '`opr_` id' }) });
