import type { LlmBudget, LlmPricing, Rate } from "./config.js";
import { costOf } from "./config.js";

export type BudgetLimit = "maxRequests" | "maxTokens" | "maxDollars";

/**
 * Request / token / dollar limits. A request is admitted only if, counting what is
 * already in flight at its worst case (prompt estimate + max output), no limit would be
 * passed; once refused, the budget stays closed so the run stops cleanly.
 */
export class Budget {
  requests = 0;
  tokens = 0;
  dollars = 0;
  private reservedTokens = 0;
  private reservedDollars = 0;
  stoppedBy: BudgetLimit | undefined;

  constructor(
    private readonly limits: LlmBudget,
    private readonly pricing: LlmPricing | undefined,
  ) {}

  /** Admit one request or say which limit refuses it. */
  reserve(
    promptTokens: number,
    maxOutputTokens: number,
    rate: Rate = "live",
  ): { ok: true; tokens: number; dollars: number } | { ok: false; limit: BudgetLimit } {
    if (this.stoppedBy) return { ok: false, limit: this.stoppedBy };
    const tokens = promptTokens + maxOutputTokens;
    const dollars = costOf(this.pricing, { promptTokens, completionTokens: maxOutputTokens }, rate);
    const { maxRequests, maxTokens, maxDollars } = this.limits;
    let limit: BudgetLimit | undefined;
    if (maxRequests !== undefined && this.requests + 1 > maxRequests) limit = "maxRequests";
    else if (maxTokens !== undefined && this.tokens + this.reservedTokens + tokens > maxTokens)
      limit = "maxTokens";
    else if (maxDollars !== undefined && this.dollars + this.reservedDollars + dollars > maxDollars)
      limit = "maxDollars";
    if (limit) {
      this.stoppedBy = limit;
      return { ok: false, limit };
    }
    this.requests += 1;
    this.reservedTokens += tokens;
    this.reservedDollars += dollars;
    return { ok: true, tokens, dollars };
  }

  /** Replace a reservation by what the request really used. */
  settle(
    reservation: { tokens: number; dollars: number },
    used: { promptTokens: number; completionTokens: number },
    rate: Rate = "live",
  ): number {
    this.reservedTokens -= reservation.tokens;
    this.reservedDollars -= reservation.dollars;
    const cost = costOf(this.pricing, used, rate);
    this.tokens += used.promptTokens + used.completionTokens;
    this.dollars += cost;
    return cost;
  }
}
