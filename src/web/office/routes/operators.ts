import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { createOperator } from '../../../services/accounts.js';
import { allOperatorAccounts, patchOperator, type OperatorAccountView } from '../../../services/operators.js';
import { formOf, formWithProblem } from '../../forms.js';
import { seeOther } from '../../session.js';
import { listed, sendCsv, type CsvColumn } from '../csv.js';
import * as forms from '../forms.js';
import { doneOf, param, sentence, type Kit } from '../kit.js';
import { off } from '../session.js';
import { operatorsPage, type OperatorFormValues } from '../views/operators.js';

const OPERATOR_COLUMNS: CsvColumn<OperatorAccountView>[] = [
  { name: 'id', value: (o) => o.id },
  { name: 'email', value: (o) => o.email },
  { name: 'role', value: (o) => o.role },
  { name: 'disabled', value: (o) => o.disabled },
  { name: 'createdAt', value: (o) => o.createdAt },
];

/** Operators: the list (every operator reads it), a new one, a role change, disabling and enabling (admins). */
export function operatorRoutes(app: FastifyInstance, { ctx, page, act, adminPost }: Kit): void {
  const showList = async (req: FastifyRequest, reply: FastifyReply, o: { form?: OperatorFormValues; error?: string | null; status?: number } = {}) => {
    const list = await allOperatorAccounts(ctx);
    return page(req, reply, (s) => operatorsPage(s, list, { done: doneOf(req), ...o }), o.status);
  };
  app.get('/office/operators', async (req, reply) => showList(req, reply));
  app.get('/office/operators.csv', async (_req, reply) => sendCsv(ctx, reply, 'operators.csv', OPERATOR_COLUMNS, listed(() => allOperatorAccounts(ctx))));

  // As POST /admin/v1/operators.
  adminPost(
    '/office/operators',
    forms.OperatorForm,
    async (req, reply) => {
      const { form, problem } = formWithProblem(req, forms.OperatorForm);
      const values = { email: form.email?.trim() ?? '', role: form.role ?? 'support' };
      if (problem) return showList(req, reply, { form: values, error: sentence(problem), status: 400 });
      try {
        if (!form.password) throw new AppError('VALIDATION_ERROR', 'password: at least 10 characters');
        const role = values.role === 'admin' ? 'admin' : 'support';
        await act(req, 'operator.create', null, (c) => createOperator(c, { email: values.email, password: form.password!, role }), (r) => r.id);
        return seeOther(reply, '/office/operators?done=operator-created');
      } catch (err) {
        if (err instanceof AppError && (err.code === 'VALIDATION_ERROR' || err.code === 'EMAIL_TAKEN')) {
          return showList(req, reply, { form: values, error: sentence(err.code === 'EMAIL_TAKEN' ? 'That email already has an operator account' : err.detail), status: err.code === 'EMAIL_TAKEN' ? 409 : 400 });
        }
        throw err;
      }
    },
    { invalid: 'route' },
  );

  /** An operator's own account is changed by another admin: nobody demotes or locks themselves out by a click. */
  const notSelf = (req: FastifyRequest, id: string) => {
    if (off(req).operator.id === id) throw new AppError('VALIDATION_ERROR', 'Your own role and access are changed by another admin');
  };
  adminPost('/office/operators/:id/role', forms.OperatorRoleForm, async (req, reply) => {
    const id = param(req, 'id');
    const role = formOf(req, forms.OperatorRoleForm).role;
    if (role !== 'admin' && role !== 'support') throw new AppError('VALIDATION_ERROR', 'role: admin or support');
    notSelf(req, id);
    await act(req, 'operator.update', id, (c) => patchOperator(c, id, { role }));
    return seeOther(reply, '/office/operators?done=operator-role');
  });
  adminPost('/office/operators/:id/access', forms.OperatorAccessForm, async (req, reply) => {
    const id = param(req, 'id');
    const disabled = formOf(req, forms.OperatorAccessForm).disabled;
    if (disabled === undefined) throw new AppError('VALIDATION_ERROR', 'disabled: true or false');
    notSelf(req, id);
    await act(req, 'operator.update', id, (c) => patchOperator(c, id, { disabled: disabled === 'true' }));
    return seeOther(reply, `/office/operators?done=${disabled === 'true' ? 'operator-disabled' : 'operator-enabled'}`);
  });
}
