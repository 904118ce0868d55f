/**
 * Fills an asset group with assets no pipeline made, through the vendor's own API: what a
 * long-lived shared group holds (`npm run bench -- --fill-group N`, and the assets e2e test
 * that a new pipeline's happy path lists none of them).
 */
import { createVendorClient } from '../../src/vendor-api';

/** Creates `count` image assets in `groupId`, a few requests at a time; returns when all exist. */
export async function fillGroup(
  vendorUrl: string,
  accessToken: string,
  groupId: string,
  count: number,
  parallel = 16,
): Promise<void> {
  const vendor = createVendorClient({ baseUrl: vendorUrl, identityUrl: vendorUrl, accessToken });
  try {
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < count; i = next++) {
        await vendor.assets.createAsset({
          GroupId: groupId,
          URL: `https://media.example.com/filler/${i}.png`,
          AssetType: 'Image',
          Name: `filler-${i}`,
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, count) }, lane));
  } finally {
    await vendor.close();
  }
}
