/**
 * The web "carrier" (provider `WEB`): a web call is not dialled, it waits for its client's stream
 * (`WebMedia`), whose start answers it and whose end completes it. Hanging up closes the stream and
 * tells the client why. Its record is the stream itself: a call whose stream is not in this process
 * (its runner is gone, and the stream with it) is not known here, and the call ends.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Carrier } from "../Ports/Telephony.js"
import { sessionOfWebCall, webCallId, WebStreams } from "../Voice/WebMedia.js"

export const makeWebCarrier = Effect.map(WebStreams, (streams): Carrier => ({
  name: "web",
  dial: (request) => Effect.as(streams.expect(request.sessionId), { providerCallId: webCallId(request.sessionId) }),
  hangup: (providerCallId, reason) => streams.hangup(sessionOfWebCall(providerCallId), reason ?? "the call ended"),
  status: (providerCallId) =>
    Effect.sync(() => {
      const phase = streams.phase(sessionOfWebCall(providerCallId))
      return phase === undefined ? Option.none() : Option.some({ phase })
    })
}))
