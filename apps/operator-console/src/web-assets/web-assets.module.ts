import { Module } from '@nestjs/common';
import { WebAssetsService } from './web-assets.service';

/** The browser app: index.html for its routes, its hashed bundles, cached accordingly. */
@Module({ providers: [WebAssetsService] })
export class WebAssetsModule {}
