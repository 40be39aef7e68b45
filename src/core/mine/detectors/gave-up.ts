import type { Detector } from "./types.js";

const GIVE_UP_RE =
  /\b(I (?:can(?:'|no)t|am unable to|was unable to|could not|couldn't) (?:complete|finish|solve|do|fix|find|accomplish|proceed)|unable to (?:complete|finish|solve|proceed)|I give up|giving up|not possible (?:for me )?to|beyond (?:my|the) (?:capabilit|scope)|I'm sorry,? but I (?:can(?:'|no)t|couldn't))/i;

/** The agent said in words that it gives up. */
export const gaveUp: Detector = {
  id: "agent.gave-up",
  description: "the agent gave up in words",
  detect(attempt) {
    const msgs = attempt.events.filter((e) => e.kind === "message" && e.role !== "user").slice(-3);
    for (const m of msgs.reverse()) {
      const match = GIVE_UP_RE.exec(m.input ?? m.output ?? "");
      if (match) return [{ eventIndices: [m.index], reason: `agent said: "${match[0]}"` }];
    }
    return [];
  },
};
