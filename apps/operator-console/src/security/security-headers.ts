/**
 * The console's Content Security Policy: scripts, styles, images, fonts and calls from its own origin
 * only, no inline scripts or styles, no plugins, no `<base>`, forms posting home, and no framing (the
 * sign-in page cannot be overlaid by another site). The Vite build inlines nothing (assetsInlineLimit 0)
 * and the pages set styles through the DOM, so nothing needs `'unsafe-inline'`.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers on every answer of the console's API port: pages, assets, proxied API answers and errors.
 * The key a user signs in with lives in the page (sessionStorage): no referrer leaves it, no other
 * site may frame or open-handle it, and no browser guesses a type the server did not send.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};
