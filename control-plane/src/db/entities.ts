import { UserEntity } from '../features/auth/user.entity.js';
import { MembershipEntity } from '../features/organizations/membership.entity.js';
import { OrganizationEntity } from '../features/organizations/organization.entity.js';
import { ServiceEntity } from '../features/services/service.entity.js';

export const ENTITIES = [OrganizationEntity, UserEntity, MembershipEntity, ServiceEntity];
