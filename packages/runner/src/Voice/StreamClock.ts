/**
 * A media stream's own clock, mapped onto the engine's.
 *
 * Each frame of the caller's audio carries its place on the stream (`MediaEvent.Audio.at`: Twilio's
 * `media.timestamp`, the simulated line's 20 ms grid, or, for a stream that gives no times, its
 * frames counted). The voice detector times frames by it rather than by when the engine takes them,
 * so a stall of the process (a garbage collection, a busy event loop) or of the network while the
 * caller's first 200 ms or last syllable come in does not move the speech's onset or end: frames
 * that arrive in a burst after a stall keep the times they were said at.
 *
 * The map: a frame that arrives `lag = arrivedAt - streamAt` after its stream time says the stream's
 * origin is at most `lag` on the engine's clock (it cannot arrive before it was sent); the least lag
 * of the recent frames is the one that waited least, so a frame is placed at `streamAt + offset`, with
 * `offset` the least lag seen over the last one to two seconds of stream time (the least of two
 * one-second blocks: no allocation, constant work). Hence:
 *
 * - a frame is never placed after it arrived, and a steady stream is placed where it arrives (the
 *   engine's times are unchanged when nothing stalls);
 * - a stall shorter than a block is taken out entirely: the frames before it, still in the window,
 *   hold the offset down while the late ones come in;
 * - the two clocks drifting apart (a carrier's clock against ours, which NTP may slew by up to
 *   0.5 ms a second) moves the offset with them: the window forgets lags older than two seconds, so
 *   the map is off by at most the drift over that window (1 ms at 500 ppm), over a call of any length;
 * - a jump (a stream that went quiet without counting the gap, a clock stepped) is taken as the
 *   new offset within two seconds; a stream whose time goes back starts the map again.
 *
 * Times placed are never earlier than the frame before (the detector's window counts on it).
 */

/** Stream time one block of the window spans (ms): the map forgets lags one to two blocks old. */
export const STREAM_CLOCK_BLOCK_MS = 1_000

export interface StreamClock {
  /**
   * The engine time (ms) of the frame that starts at `streamAt` on the stream's clock and arrived at
   * `arrivedAt` on the engine's. Frames are given in the stream's order.
   */
  readonly place: (streamAt: number, arrivedAt: number) => number
}

export const makeStreamClock = (blockMs: number = STREAM_CLOCK_BLOCK_MS): StreamClock => {
  let block = Number.NaN
  let blockMin = Number.POSITIVE_INFINITY
  let previousMin = Number.POSITIVE_INFINITY
  let lastStreamAt = Number.NEGATIVE_INFINITY
  let lastPlaced = Number.NEGATIVE_INFINITY
  return {
    place: (streamAt, arrivedAt) => {
      if (!Number.isFinite(streamAt)) return Math.max(arrivedAt, lastPlaced)
      const lag = arrivedAt - streamAt
      if (streamAt < lastStreamAt) {
        // the stream's time went back: what was learnt of it no longer holds
        block = Number.NaN
        blockMin = previousMin = Number.POSITIVE_INFINITY
        lastPlaced = Number.NEGATIVE_INFINITY
      }
      lastStreamAt = streamAt
      const current = Math.floor(streamAt / blockMs)
      if (current !== block) {
        // the block before the new one is kept (one to two blocks of history); an older one is not
        previousMin = current === block + 1 ? blockMin : Number.POSITIVE_INFINITY
        blockMin = Number.POSITIVE_INFINITY
        block = current
      }
      if (lag < blockMin) blockMin = lag
      const placed = streamAt + Math.min(blockMin, previousMin)
      lastPlaced = Math.max(placed, lastPlaced)
      return lastPlaced
    }
  }
}
