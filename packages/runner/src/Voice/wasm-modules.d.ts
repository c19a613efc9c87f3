// The Echogarden WebAssembly builds ship without type declarations: each is an Emscripten module factory.
declare module "@echogarden/speex-resampler-wasm" {
  const factory: () => Promise<unknown>
  export default factory
}
declare module "@echogarden/fvad-wasm" {
  const factory: () => Promise<unknown>
  export default factory
}
