// The browser code imports types from @ums/contracts, whose sources are shared with the services: one
// signature there (decodeMessage) names Node's Buffer. This names the type only, as bytes, so the
// contracts type-check under the DOM library without Node's globals leaking into the browser code.
interface Buffer extends Uint8Array {
  toString(encoding?: string): string;
}
