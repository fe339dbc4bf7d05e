// Type-level only (compiled by dto.test.ts with bundler resolution): our Jellyfin DTOs are
// assignable to @jellyfin/sdk 1.0.0's generated models, the types the apps' clients read.
import type { BaseItemDto } from '@jellyfin/sdk/lib/generated-client/models/base-item-dto.js';
import type { MediaSourceInfo } from '@jellyfin/sdk/lib/generated-client/models/media-source-info.js';
import type { UserItemDataDto } from '@jellyfin/sdk/lib/generated-client/models/user-item-data-dto.js';
import type { UserDto as SdkUserDto } from '@jellyfin/sdk/lib/generated-client/models/user-dto.js';
import type { UserDto } from '../../../src/domain/jellyfin/user-dto.ts';
import type { MediaSourceDto, MovieDto, UserDataDto } from '../../../src/domain/jellyfin/dto.ts';

export const asBaseItem = (dto: MovieDto): BaseItemDto => dto;
export const asMediaSource = (dto: MediaSourceDto): MediaSourceInfo => dto;
export const asUserData = (dto: UserDataDto): UserItemDataDto => dto;
export const asUser = (dto: UserDto): SdkUserDto => dto;
