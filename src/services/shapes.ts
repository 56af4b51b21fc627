/**
 * The records services hand to the API and the pages. The surfaces import them from here, never
 * from the store: what a page or route sees is the services' contract, and the store stays free
 * to change how it reads them.
 */
export type { UserRow, OperatorRow } from '../store/accounts.js';
export type { CatalogVersions } from '../store/catalogVersions.js';
export type { DeskAtAuth, DeskRow } from '../store/desks.js';
export type { MerchantRow } from '../store/merchants.js';
export type { OrderRow } from '../store/orders.js';
export type { Surface } from '../store/sessions.js';
