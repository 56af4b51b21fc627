import { describe, expectTypeOf, it } from 'vitest';
import type {
  Appeal,
  Balance,
  CallbackEvent,
  CreateAppealRequest,
  CreatedOrder,
  CreateOrderRequest,
  ErrorCode,
  EventsPage,
  FeedEvent,
  Methods,
  Order,
  OrderStatus,
  Paygate,
  Rates,
} from '@paygate/sdk';
import type { components, operations } from '../../packages/sdk/src/generated/openapi.js';

// The SDK's types come from the generated OpenAPI types; these checks run in `tsc --noEmit` (and
// vitest), so a generator or document change that would silently turn them into `never` or drop a
// field the SDK relies on fails the typecheck.

describe('SDK wire types from the OpenAPI document', () => {
  it('name real shapes, not never', () => {
    for (const check of [
      expectTypeOf<CreateOrderRequest>(),
      expectTypeOf<CreatedOrder>(),
      expectTypeOf<Order>(),
      expectTypeOf<Appeal>(),
      expectTypeOf<CreateAppealRequest>(),
      expectTypeOf<Methods>(),
      expectTypeOf<Rates>(),
      expectTypeOf<Balance>(),
      expectTypeOf<EventsPage>(),
      expectTypeOf<FeedEvent>(),
      expectTypeOf<CallbackEvent>(),
    ]) {
      check.not.toBeNever();
    }
    expectTypeOf<OrderStatus>().toEqualTypeOf<'Created' | 'Payed' | 'Completed' | 'Canceled' | 'Dispute' | 'CompletedOnDispute' | 'WaitingPayment'>();
    expectTypeOf<CreateOrderRequest>().toHaveProperty('amount').toEqualTypeOf<number>();
    expectTypeOf<CreateOrderRequest['orderRef']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Order>().toHaveProperty('commission').toHaveProperty('amount').toEqualTypeOf<string>();
    expectTypeOf<Order['settled']['rate']>().toEqualTypeOf<string>();
    expectTypeOf<Appeal['amount']['value']>().toEqualTypeOf<string>();
    expectTypeOf<Methods['rails'][number]['currencies'][number]['code']>().toEqualTypeOf<string>();
    expectTypeOf<Rates['rates'][number]['priceable']>().toEqualTypeOf<boolean>();
    expectTypeOf<Balance['available']>().toEqualTypeOf<string>();
    expectTypeOf<FeedEvent['body']>().toEqualTypeOf<string>();
    expectTypeOf<EventsPage['next']>().toEqualTypeOf<string | null>();
    expectTypeOf<CallbackEvent['event']>().toEqualTypeOf<'order.completed' | 'order.cancelled' | 'order.appealed' | 'order.updated'>();
    // Where to send the customer, and whether the order moves real money: in the create answer, every read and every callback.
    expectTypeOf<CreatedOrder['payPageUrl']>().toEqualTypeOf<string>();
    expectTypeOf<Order['payPageUrl']>().toEqualTypeOf<string>();
    expectTypeOf<CreatedOrder['sandbox']>().toEqualTypeOf<boolean>();
    expectTypeOf<Order['sandbox']>().toEqualTypeOf<boolean>();
    expectTypeOf<CallbackEvent['sandbox']>().toEqualTypeOf<boolean>();
  });

  it('type what the client resolves to', () => {
    expectTypeOf<Paygate['orders']['create']>().returns.resolves.toEqualTypeOf<CreatedOrder>();
    expectTypeOf<Paygate['orders']['get']>().returns.resolves.toEqualTypeOf<Order>();
    expectTypeOf<Paygate['appeals']['get']>().returns.resolves.toEqualTypeOf<Appeal>();
    expectTypeOf<Paygate['balance']>().returns.resolves.toEqualTypeOf<Balance>();
  });

  it('are the named schemas of the document, so other generated clients share the names', () => {
    type Schemas = components['schemas'];
    expectTypeOf<Order>().toEqualTypeOf<Schemas['Order']>();
    expectTypeOf<CreatedOrder>().toEqualTypeOf<Schemas['OrderCreated']>();
    expectTypeOf<Appeal>().toEqualTypeOf<Schemas['Appeal']>();
    expectTypeOf<Balance>().toEqualTypeOf<Schemas['Balance']>();
    expectTypeOf<FeedEvent>().toEqualTypeOf<Schemas['Event']>();
    expectTypeOf<CreateOrderRequest>().toEqualTypeOf<Schemas['CreateOrderRequest']>();
    expectTypeOf<Schemas['ErrorEnvelope']['fault']['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<'ORDER_NOT_FOUND'>().toExtend<ErrorCode>();
    expectTypeOf<'NOT_A_CODE'>().not.toExtend<ErrorCode>();
    // An error answer narrows the code to the ones its status can carry.
    type Conflict = operations['createOrder']['responses'][409]['content']['application/json'];
    expectTypeOf<Conflict['fault']['code']>().toEqualTypeOf<'REPLAY_DETECTED' | 'ORDER_REF_CONFLICT'>();
    // Every key of the payment object is there, whichever detail the rail fills.
    expectTypeOf<Order['payment']['card']>().toEqualTypeOf<string | null>();
  });
});
