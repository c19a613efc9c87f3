import * as crypto from "node:crypto"

/** The query a messaging platform sends to verify a webhook subscription (`hub.*`). */
export interface SubscriptionQuery {
  readonly "hub.mode"?: string | undefined
  readonly "hub.verify_token"?: string | undefined
  readonly "hub.challenge"?: string | undefined
}

/** Compares secrets in constant time, whatever their lengths. */
export const sameSecret = (a: string, b: string) =>
  crypto.timingSafeEqual(crypto.createHash("sha256").update(a).digest(), crypto.createHash("sha256").update(b).digest())

/**
 * The challenge to answer when the platform subscribes with the expected verify token; `undefined`
 * (refuse) when the mode is not `subscribe`, a parameter is missing, no token was issued, or it differs.
 */
export const subscriptionChallenge = (query: SubscriptionQuery, token: string | undefined): string | undefined => {
  const presented = query["hub.verify_token"]
  const challenge = query["hub.challenge"]
  return query["hub.mode"] === "subscribe" && presented !== undefined && challenge !== undefined &&
      token !== undefined &&
      sameSecret(presented, token)
    ? challenge
    : undefined
}
