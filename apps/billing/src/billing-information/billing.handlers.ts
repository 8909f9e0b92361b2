/**
 * Bus handlers for partner billing: read it, update it (prepaid: the card is checked with the card
 * processor first), and the operator's choice of billing mode. The partner id comes from the
 * gateway's authentication (or the operator), never from the partner's request body.
 *
 * The card number and security code exist only in this request's memory: they are handed to the
 * processor and dropped; events, read models, logs and replies carry brand and last four digits.
 */
import {
  badRequest,
  type BillingAddress,
  type BillingView,
  cardDeclined,
  type CardSummary,
  type PartnerScoped,
  serviceUnavailable,
  Streams,
  Subjects,
  type UpdateBillingRequest,
} from '@burrow/contracts';
import { handleCommand, loadAggregate } from '@burrow/eventsourcing';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { cardBrand, lastFour } from '../card-processor/card-number.js';
import type { CardAuthorization } from '../card-processor/card-processor.js';
import { BILLING_CONTEXT, type BillingContext } from '../context.js';
import { billingDecider, isBillingMode } from './billing.js';
import { billingOf } from './billing.projection.js';
import { type CardInput, parseBillingRequest } from './billing-request.js';

const PARTNER_ID = /^[A-Za-z0-9-]{1,64}$/;

function partnerStream(partnerId: unknown): string {
  if (typeof partnerId !== 'string' || !PARTNER_ID.test(partnerId))
    throw badRequest('partnerId is required', ['partnerId']);
  return Streams.billing(partnerId);
}

@Controller()
export class BillingHandlers {
  constructor(@Inject(BILLING_CONTEXT) private readonly ctx: BillingContext) {}

  @MessagePattern(Subjects.billing.getBilling)
  async get(@Payload() { partnerId }: PartnerScoped): Promise<BillingView> {
    partnerStream(partnerId);
    return billingOf(this.ctx.docs, partnerId);
  }

  /** Operator only (admin CLI). Setting the mode a partner already has changes nothing. */
  @MessagePattern(Subjects.billing.setBillingMode)
  async setMode(
    @Payload() { partnerId, billing_mode }: PartnerScoped & { billing_mode: unknown },
  ): Promise<BillingView> {
    const stream = partnerStream(partnerId);
    if (!isBillingMode(billing_mode)) throw badRequest('billing_mode must be "prepaid" or "invoice"', ['billing_mode']);
    const result = await handleCommand(this.ctx.store, stream, billingDecider, {
      type: 'SetBillingMode',
      billing_mode,
      at: this.ctx.clock.now(),
    });
    await this.ctx.runner.waitFor(result.position);
    this.ctx.log.info({ partnerId, billing_mode, changed: result.position !== null }, 'billing mode set');
    return billingOf(this.ctx.docs, partnerId);
  }

  @MessagePattern(Subjects.billing.updateBilling)
  async update(@Payload() { partnerId, billing }: UpdateBillingRequest): Promise<BillingView> {
    const stream = partnerStream(partnerId);
    const { state } = await loadAggregate(this.ctx.store, stream, billingDecider);
    const request = parseBillingRequest(billing, state.mode, this.ctx.clock.now());
    const card = request.card ? await this.authorize(partnerId, stream, request.card, request.address) : null;
    // The decider checks the mode again: the operator may have changed it since it was read.
    const result = await handleCommand(this.ctx.store, stream, billingDecider, {
      type: 'UpdateBillingInformation',
      address: request.address,
      card,
      at: this.ctx.clock.now(),
    });
    await this.ctx.runner.waitFor(result.position);
    this.ctx.log.info(
      { partnerId, billing_mode: state.mode, brand: card?.brand, last4: card?.last4 },
      'billing information updated',
    );
    return billingOf(this.ctx.docs, partnerId);
  }

  /** Approved: what Burrow keeps of the card. Declined: records the decline and throws the 409. */
  private async authorize(
    partnerId: string,
    stream: string,
    card: CardInput,
    address: BillingAddress,
  ): Promise<CardSummary> {
    let answer: CardAuthorization;
    try {
      answer = await this.ctx.processor.authorize({
        number: card.number,
        security_code: card.security_code,
        expiration_month: card.expiration_month,
        expiration_year: card.expiration_year,
        holder: { name: address.name, postal_code: address.postal_code, country: address.country },
      });
    } catch (error) {
      // Only the error's class: an adapter's message might quote what it sent.
      this.ctx.log.error({ partnerId, error: (error as Error)?.name ?? 'unknown' }, 'card processor failed');
      throw serviceUnavailable('the card processor did not answer; nothing was stored, retry');
    }
    if (!answer.approved) {
      const decline = {
        code: String(answer.code),
        reason: String(answer.reason),
        brand: cardBrand(card.number),
        last4: lastFour(card.number),
      };
      const result = await handleCommand(this.ctx.store, stream, billingDecider, {
        type: 'RecordCardDecline',
        ...decline,
        at: this.ctx.clock.now(),
      });
      await this.ctx.runner.waitFor(result.position);
      this.ctx.log.info({ partnerId, code: decline.code, brand: decline.brand, last4: decline.last4 }, 'card declined');
      throw cardDeclined(decline.code, decline.reason);
    }
    return {
      brand: answer.brand,
      last4: answer.last4,
      expiration_month: card.expiration_month,
      expiration_year: card.expiration_year,
    };
  }
}
