/**
 * A Prometheus metric read from the `/metrics` of each management URL (ServiceProcess.managementUrl)
 * and summed: every series named `name` whose labels include each of `labels` (0 when none has it).
 */
export async function sumMetric(
  managementUrls: readonly string[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<number> {
  const texts = await Promise.all(managementUrls.map(async (url) => (await fetch(`${url}/metrics`)).text()));
  let sum = 0;
  for (const text of texts) {
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
        sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}
