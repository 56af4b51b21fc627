/**
 * The shapes of the device messages' routes (reconciliation contract, "Device messages"): devices,
 * templates and the signed messages endpoint, for validation, serialisation and the OpenAPI document.
 */
import Type from 'typebox';
import { Nullable } from '../schemas/common.js';

const opt = Type.Optional;
const str = (description: string) => Type.String({ description });
const nstr = (description: string) => Nullable(Type.String({ description }));

// ---- devices

const DeviceState = Type.Unsafe<string>({ type: 'string', enum: ['active', 'silent'], title: 'DeviceState', description: '`silent`: not heard from for `DEVICE_SILENCE_MINUTES`; its requisites take no new order' });
const RequisiteIds = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 100, description: '`rqs_` ids of the provider whose messages the device forwards' });

export const Device = Type.Object(
  {
    id: str('`dev_` id: the `deviceId` its messages and heartbeats name'),
    providerId: Type.String(),
    name: Type.String(),
    requisiteIds: Type.Array(Type.String()),
    lastSeenAt: nstr('the last heartbeat or message; null: never heard from (silent once the silence has passed since its creation)'),
    state: DeviceState,
    messagesToday: Type.Integer({ description: 'messages received this UTC day' }),
    unread: Type.Integer({ description: 'its messages waiting for a person' }),
    createdAt: Type.String(),
  },
  { title: 'Device' },
);
export const DeviceWithKey = Type.Object(
  {
    ...Device.properties,
    signingKey: str('`dsk_…`: the key a forwarding app on the phone signs its deliveries with (type it into the app\'s settings); shown in this answer only'),
  },
  { title: 'DeviceWithSigningKey' },
);
export const CreateDeviceBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), requisiteIds: RequisiteIds }, { title: 'CreateDeviceRequest', additionalProperties: false });
export const PatchDeviceBody = Type.Object({ name: opt(Type.String({ minLength: 1, maxLength: 100 })), requisiteIds: opt(RequisiteIds) }, { title: 'PatchDeviceRequest', additionalProperties: false });
export const DeviceIdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128, description: '`dev_` id' }) });

// ---- templates

const TemplateKind = Type.Unsafe<string>({ type: 'string', enum: ['credit', 'debit', 'other'], title: 'MessageTemplateKind', description: '`credit` makes a credit; `debit` and `other` (balance notices, one-time codes) are skipped' });
const Pattern = (description: string) => Type.String({ minLength: 1, maxLength: 2000, description });
const TEXT_PATTERN = 'JavaScript regular-expression syntax with named groups among `amount`, `currency`, `account`, `payer`, `reference`, `bankReference`, `balance` (`(?<amount>…)`), run in linear time (re2: no lookarounds or back-references); case is ignored';

export const MessageTemplate = Type.Object(
  {
    id: str('`tpl_` id (`tpl_builtin_…` for the built-in ones)'),
    name: Type.String(),
    providerId: nstr('null: every pool'),
    sender: nstr('pattern the sender must match; null: any sender'),
    pattern: str(TEXT_PATTERN),
    kind: TemplateKind,
    currency: nstr('fixed; null: read from the text (`₽`, `Rs.`, `₸`, `TL`, `원`, ISO codes) or the requisite\'s'),
    enabled: Type.Boolean(),
    builtIn: Type.Boolean({ description: 'built in: read after the operators\' templates, not editable' }),
    createdAt: nstr('null for a built-in template'),
    updatedAt: nstr('null for a built-in template'),
  },
  { title: 'MessageTemplate' },
);
const TemplateFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  providerId: opt(Nullable(Type.String({ minLength: 1, maxLength: 128, description: '`prv_` id of a pool; null: every pool' }))),
  sender: opt(Nullable(Pattern('pattern the sender must match; null: any sender'))),
  pattern: Pattern(TEXT_PATTERN),
  kind: TemplateKind,
  currency: opt(Nullable(Type.String({ pattern: '^[A-Z]{3}$', 'x-message': 'must be an ISO 4217 code' }))),
  enabled: opt(Type.Boolean()),
};
export const CreateTemplateBody = Type.Object(TemplateFields, { title: 'CreateMessageTemplateRequest', additionalProperties: false });
export const PatchTemplateBody = Type.Object(
  { ...TemplateFields, name: opt(TemplateFields.name), pattern: opt(TemplateFields.pattern), kind: opt(TemplateKind) },
  { title: 'PatchMessageTemplateRequest', additionalProperties: false },
);
export const TemplateIdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128, description: '`tpl_` id' }) });
export const ListTemplatesQuery = Type.Object({ providerId: opt(Type.String({ minLength: 1, maxLength: 128, description: 'a pool\'s templates and the shared ones' })) });

export const TryTemplatesBody = Type.Object(
  {
    sender: opt(Nullable(Type.String({ maxLength: 255 }))),
    text: Type.String({ minLength: 1, maxLength: 4000, description: 'up to 2,000 characters' }),
    providerId: opt(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
    template: opt(Type.Object(TemplateFields, { additionalProperties: false, description: 'an unsaved template, tried before the others' })),
  },
  { title: 'TryMessageTemplatesRequest', additionalProperties: false },
);
export const TryTemplatesResult = Type.Object(
  {
    becomes: Type.Unsafe<string>({ type: 'string', enum: ['credit', 'skipped', 'unread'], description: 'what the message would become: the first reading decides' }),
    readings: Type.Array(
      Type.Object({
        templateId: Type.String(),
        name: Type.String(),
        kind: TemplateKind,
        builtIn: Type.Boolean(),
        amount: nstr('exact, 2 places'),
        currency: Nullable(Type.String()),
        account: nstr('as the lookup takes it: a masked one as `*` and its last digits'),
        payer: Nullable(Type.String()),
        reference: Nullable(Type.String()),
        bankReference: Nullable(Type.String()),
        balance: Nullable(Type.String()),
        problem: nstr('what keeps this reading from being a credit'),
      }, { title: 'MessageTemplateReading' }),
    ),
  },
  { title: 'TryMessageTemplatesResult' },
);

// ---- messages

export const MessagesBody = Type.Object(
  {
    messages: Type.Array(
      Type.Object(
        {
          id: Type.String({ minLength: 1, maxLength: 255, description: 'the device\'s id of the message: sent again with the same text it is answered `duplicate: true`' }),
          deviceId: Type.String({ minLength: 1, maxLength: 255, description: '`dev_` id of the device that received it' }),
          sender: Type.String({ minLength: 1, maxLength: 255, description: 'the SMS sender or the app that posted the notification' }),
          text: Type.String({ minLength: 1, description: 'up to 2,000 characters, any script' }),
          receivedAt: Type.String({ description: 'ISO 8601 with a zone; more than 5 minutes ahead of the gateway, the gateway\'s time of arrival is taken (warning `DEVICE_CLOCK_AHEAD`)' }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { title: 'DeviceMessagesRequest' },
);

export const MessagesResult = Type.Object(
  {
    messages: Type.Array(
      Type.Object(
        {
          id: str('the device\'s id of the message'),
          messageId: str('`msg_` id: the message as kept'),
          outcome: Type.Unsafe<string>({ type: 'string', enum: ['credit', 'skipped', 'unread'] }),
          reason: nstr('why skipped or unread (`unknown device`, `no template reads it`, …)'),
          creditId: nstr('the credit it is'),
          status: Nullable(Type.Unsafe<string>({ type: 'string', enum: ['matched', 'unmatched', 'ignored'] })),
          orderId: nstr('the order the credit paid'),
          duplicate: Type.Boolean({ description: 'the message, or its money, was recorded before; nothing changed now' }),
          duplicateOf: nstr('the credit a duplicate repeats'),
          warnings: Type.Array(Type.String(), { description: '`TRANSACTION_ID_REUSED`, `DEVICE_CLOCK_AHEAD`' }),
        },
        { title: 'DeviceMessageOutcome' },
      ),
    ),
  },
  { title: 'DeviceMessagesResult' },
);

export const UnreadMessage = Type.Object(
  {
    id: str('`msg_` id'),
    providerId: Type.String(),
    messageId: Type.String(),
    deviceId: Type.String(),
    deviceKnown: Type.Boolean(),
    sender: Type.String(),
    text: Type.String(),
    receivedAt: Type.String(),
    outcome: Type.String(),
    reason: Nullable(Type.String()),
    templateId: Nullable(Type.String()),
    creditId: Nullable(Type.String()),
    createdAt: Type.String(),
  },
  { title: 'DeviceMessage' },
);
export const ListUnreadQuery = Type.Object({ limit: opt(Type.Integer({ minimum: 1, maximum: 500, description: 'at most this many; 100 by default' })) });

// ---- the forwarding app's webhooks

export const AppDeliveryResult = Type.Object(
  {
    event: str('the app\'s event, as sent'),
    outcome: Type.Unsafe<string>({ type: 'string', enum: ['message', 'heartbeat', 'ignored'], description: '`message`: an SMS read as the device\'s message; `heartbeat`: `system:ping`; `ignored`: another event of the app (the device is heard from all the same)' }),
    message: Nullable(MessagesResult.properties.messages.items),
    device: Device,
  },
  { title: 'ForwardingAppDeliveryResult' },
);
