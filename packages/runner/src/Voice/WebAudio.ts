/**
 * A web call's audio is 16 kHz PCM and the platform's is 8 kHz: halving and doubling the rate, as a
 * stream (each piece goes on from the last, so frames of any size join without clicks). One
 * windowed-sinc low-pass serves both ways: it keeps the telephone band (to about 3.5 kHz) and takes
 * out what would fold back into it when halving, or mirror above it when doubling. Synchronous and
 * a few multiplications a sample: no worker, no WebAssembly, nothing to free.
 */

const TAPS = 47

/** The low-pass at a quarter of the higher rate (4 kHz at 16 kHz), Blackman-windowed, unity gain. */
const LOW_PASS: Float64Array = (() => {
  const h = new Float64Array(TAPS)
  const middle = (TAPS - 1) / 2
  let sum = 0
  for (let n = 0; n < TAPS; n++) {
    const x = n - middle
    const sinc = x === 0 ? 0.5 : Math.sin(0.5 * Math.PI * x) / (Math.PI * x)
    const window = 0.42 - 0.5 * Math.cos((2 * Math.PI * n) / (TAPS - 1)) +
      0.08 * Math.cos((4 * Math.PI * n) / (TAPS - 1))
    h[n] = sinc * window
    sum += h[n]!
  }
  for (let n = 0; n < TAPS; n++) h[n] = h[n]! / sum
  return h
})()

const clamp16 = (value: number): number => value > 32_767 ? 32_767 : value < -32_768 ? -32_768 : Math.round(value)

/** 16 kHz in, 8 kHz out: every other sample of the filtered input. */
export const makeDownsampler = () => {
  // the last TAPS - 1 samples, then the new ones
  let history = new Float64Array(TAPS - 1)
  let phase = 0
  return (input: Int16Array): Int16Array => {
    const buffer = new Float64Array(history.length + input.length)
    buffer.set(history)
    for (let i = 0; i < input.length; i++) buffer[history.length + i] = input[i]!
    const out: Array<number> = []
    for (let i = phase; i < input.length; i += 2) {
      // the filter ends at input sample i
      let acc = 0
      const end = history.length + i
      for (let k = 0; k < TAPS; k++) acc += LOW_PASS[k]! * buffer[end - k]!
      out.push(clamp16(acc))
    }
    phase = input.length % 2 === 0 ? phase : 1 - phase
    history = buffer.slice(buffer.length - (TAPS - 1))
    return Int16Array.from(out)
  }
}

/** 8 kHz in, 16 kHz out: each sample followed by a zero, filtered (twice the gain for the zeros). */
export const makeUpsampler = () => {
  const span = Math.ceil(TAPS / 2)
  let history = new Float64Array(span)
  return (input: Int16Array): Int16Array => {
    const buffer = new Float64Array(span + input.length)
    buffer.set(history)
    for (let i = 0; i < input.length; i++) buffer[span + i] = input[i]!
    const out = new Int16Array(input.length * 2)
    for (let i = 0; i < input.length; i++) {
      const at = span + i
      for (let p = 0; p < 2; p++) {
        // output sample 2i + p sees input samples at even distances of the stuffed stream
        let acc = 0
        for (let k = p; k < TAPS; k += 2) acc += LOW_PASS[k]! * buffer[at - (k - p) / 2]!
        out[2 * i + p] = clamp16(2 * acc)
      }
    }
    history = buffer.slice(buffer.length - span)
    return out
  }
}

/** Little-endian 16-bit PCM bytes as samples (`bytes` may be unaligned; its length must be even). */
export const samplesOf = (bytes: Uint8Array): Int16Array => {
  const samples = new Int16Array(bytes.length >> 1)
  for (let i = 0; i < samples.length; i++) samples[i] = (bytes[2 * i]! | (bytes[2 * i + 1]! << 8)) << 16 >> 16
  return samples
}

/** Samples as little-endian 16-bit PCM bytes. */
export const bytesOf = (samples: Int16Array): Buffer => {
  const bytes = Buffer.alloc(samples.length * 2)
  for (let i = 0; i < samples.length; i++) bytes.writeInt16LE(samples[i]!, 2 * i)
  return bytes
}
