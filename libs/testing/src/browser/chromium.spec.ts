import { chromiumPath, launchChromium } from './chromium';

describe('launchChromium', () => {
  const saved = process.env['CHROMIUM_PATH'];
  afterEach(() => {
    if (saved === undefined) delete process.env['CHROMIUM_PATH'];
    else process.env['CHROMIUM_PATH'] = saved;
  });

  it("takes CHROMIUM_PATH, else Debian's chromium", () => {
    delete process.env['CHROMIUM_PATH'];
    expect(chromiumPath()).toBe('/usr/bin/chromium');
    process.env['CHROMIUM_PATH'] = '/opt/chrome/chrome';
    expect(chromiumPath()).toBe('/opt/chrome/chrome');
  });

  it('fails naming the package to install when the browser is missing, never skipping', async () => {
    process.env['CHROMIUM_PATH'] = '/nonexistent/chromium';
    await expect(launchChromium()).rejects.toThrow(
      'Chromium not found at /nonexistent/chromium: install the Debian package chromium',
    );
  });
});
