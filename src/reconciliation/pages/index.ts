/**
 * The reconciliation room's back-office pages, as src/app hands them to the back office: the
 * credits queue with its count in the navigation, the pool providers with their requisites,
 * statement upload and CSV profiles, the bank statements, the day reports, and the home page's
 * warning of statements whose balances do not add up or leave a gap. They are registered inside
 * the office's signed-in scope (session, CSRF, two-factor gate, error pages) and use its shell;
 * the office never imports them.
 */
import type { OfficeExtensions } from '../../web/office/kit.js';
import { unmatchedCreditCount } from '../queue.js';
import { creditPages } from './credits.js';
import { CREDITS_PATH } from './creditsView.js';
import { statementFindings } from './home.js';
import { poolPages } from './pools.js';
import { RECONCILIATION_PATH } from './poolsView.js';
import { profilePages } from './profiles.js';
import { unreadCount } from '../messages.js';
import { messagePages } from './messages.js';
import { MESSAGES_PATH, TEMPLATES_PATH } from './messagesView.js';
import { reportPages } from './report.js';
import { statementPages } from './statements.js';
import { STATEMENTS_PATH } from './statementsView.js';

export const reconciliationOffice: OfficeExtensions = {
  pages: [creditPages, poolPages, profilePages, statementPages, reportPages, messagePages],
  nav: [
    { label: 'Unmatched credits', path: CREDITS_PATH, group: 'queues', count: unmatchedCreditCount },
    { label: 'Unread messages', path: MESSAGES_PATH, group: 'queues', count: unreadCount },
    { label: 'Reconciliation', path: RECONCILIATION_PATH, group: 'objects' },
    { label: 'Bank statements', path: STATEMENTS_PATH, group: 'objects' },
    { label: 'Message templates', path: TEMPLATES_PATH, group: 'objects' },
  ],
  home: [statementFindings],
};
