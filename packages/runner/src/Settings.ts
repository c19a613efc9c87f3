import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

export interface RateDefaults {
  /** Minor units per minute of talk. */
  readonly voicePerMinute: number
  /** Minor units per minute of a web call; unset: `voicePerMinute`. */
  readonly webPerMinute?: number | undefined
  readonly billingIncrementSeconds: number
  readonly smsPerSegment: number
  readonly chatAppPerMessage: number
  /** Talk time each reservation covers; a call needs one chunk available to be placed. */
  readonly reservationChunkSeconds: number
}

export interface CallSettings {
  readonly defaultConcurrentCalls: number
  readonly maxCallDurationSeconds: number
  readonly defaultDialTimeoutSeconds: number
  /** How long a web call's stream token is good for (default `WEB_CALL_TOKEN_SECONDS`). */
  readonly webCallTokenSeconds?: number | undefined
}

export interface PlatformSettingsShape {
  readonly rates: RateDefaults
  readonly calls: CallSettings
}

/** Platform-wide settings the runtime reads (from configuration in the roles, fixed in tests). */
export class PlatformSettings
  extends Context.Tag("Runner/PlatformSettings")<PlatformSettings, PlatformSettingsShape>()
{
  static readonly defaults: PlatformSettingsShape = {
    rates: {
      voicePerMinute: 5,
      billingIncrementSeconds: 6,
      smsPerSegment: 1,
      chatAppPerMessage: 1,
      reservationChunkSeconds: 120
    },
    calls: {
      defaultConcurrentCalls: 10,
      maxCallDurationSeconds: 3600,
      defaultDialTimeoutSeconds: 30
    }
  }

  static readonly layer = (settings: PlatformSettingsShape = PlatformSettings.defaults) =>
    Layer.succeed(PlatformSettings, settings)
}
