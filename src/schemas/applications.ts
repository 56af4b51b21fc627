import Type from 'typebox';
import { APPLICATION_LIMITS, APPLICATION_STATUSES } from '../domain/applications.js';
import { Amount2, Nullable, Timestamp } from './common.js';

/** A merchant's application for approval, as the operator API reads it and the reject takes its reason. */

export const ApplicationStatus = Type.Unsafe<(typeof APPLICATION_STATUSES)[number]>({
  type: 'string',
  enum: [...APPLICATION_STATUSES],
  title: 'ApplicationStatus',
  description: '`draft` (saved, not submitted), `submitted` (waits for review), `approved`, `rejected` (with `reason`; the merchant may edit it and submit again)',
});

export const MerchantApplication = Type.Object(
  {
    status: ApplicationStatus,
    legalName: Nullable(Type.String({ description: 'the registered name, any script' })),
    country: Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code' })),
    website: Nullable(Type.String({ description: 'an http(s) address' })),
    description: Nullable(Type.String({ description: 'what the business sells' })),
    monthlyVolumeUsd: Nullable(Amount2),
    contact: Nullable(Type.String({ description: 'whom to reach, and how' })),
    submittedAt: Nullable(Timestamp),
    decidedAt: Nullable(Timestamp),
    reason: Nullable(Type.String({ description: 'the operator\'s reason of a rejection' })),
  },
  { title: 'MerchantApplication', description: 'a draft may have any field null; a submitted application has all of them' },
);

export const RejectMerchantBody = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: 4000,
      description: `why the application is rejected, for the merchant to read: ${APPLICATION_LIMITS.reason.min} to ${APPLICATION_LIMITS.reason.max} characters after trimming`,
    }),
  },
  { title: 'RejectMerchantRequest' },
);
