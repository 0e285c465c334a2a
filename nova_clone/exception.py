"""Exceptions shared by every service.

Each carries an HTTP ``code`` and a ``msg_fmt`` filled from keyword
arguments, so the API can turn any of them into Nova's error body and an
RPC caller gets the same message the callee raised.
"""

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class NovaException(Exception):
    msg_fmt = 'An unknown exception occurred.'
    code = 500
    headers = {}
    safe = False

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        self.kwargs.setdefault('code', self.code)
        if not message:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                LOG.exception('Bad arguments for %s: %s',
                              type(self).__name__, kwargs)
                message = self.msg_fmt
        self.message = message
        super().__init__(message)

    def format_message(self):
        return self.args[0] if self.args else self.message


# -- Base classes, one per HTTP status --------------------------------------

class Invalid(NovaException):
    msg_fmt = 'Bad Request - Invalid Parameters'
    code = 400


class Forbidden(NovaException):
    msg_fmt = 'Forbidden'
    code = 403


class NotFound(NovaException):
    msg_fmt = 'Resource could not be found.'
    code = 404


class Conflict(NovaException):
    msg_fmt = 'Conflict.'
    code = 409


# -- API requests and versions ----------------------------------------------

class ValidationError(Invalid):
    msg_fmt = '%(detail)s'


class PolicyNotAuthorized(Forbidden):
    msg_fmt = "Policy doesn't allow %(action)s to be performed."


class InvalidRequest(Invalid):
    msg_fmt = 'The request is invalid.'


class InvalidInput(Invalid):
    msg_fmt = 'Invalid input received: %(reason)s'


class InvalidAPIVersionString(Invalid):
    msg_fmt = ('API Version String %(version)s is of invalid format. Must '
               'be of format MajorNum.MinorNum.')


class InvalidGlobalAPIVersion(NovaException):
    msg_fmt = ('Version %(req_ver)s is not supported by the API. Minimum '
               'is %(min_ver)s and maximum is %(max_ver)s.')
    code = 406


class VersionNotFoundForAPIMethod(Invalid):
    msg_fmt = 'API version %(version)s is not supported on this method.'
    code = 404


class InvalidSortKey(Invalid):
    msg_fmt = 'Sort key supplied is invalid: %(sort_key)s'


class MarkerNotFound(NotFound):
    msg_fmt = 'Marker %(marker)s could not be found.'
    # The API answers a bad paging marker with 400, as Nova does.
    code = 400


# -- Quotas and limits ------------------------------------------------------

class OverQuota(Forbidden):
    msg_fmt = 'Quota exceeded for resources: %(overs)s'


class TooManyInstances(OverQuota):
    msg_fmt = ('Quota exceeded for %(overs)s: Requested %(req)s, but already '
               'used %(used)s of %(allowed)s %(overs)s')


class MetadataLimitExceeded(OverQuota):
    msg_fmt = 'Maximum number of metadata items exceeds %(allowed)d'


class QuotaNotFound(NotFound):
    msg_fmt = 'Quota could not be found'


class ProjectQuotaNotFound(QuotaNotFound):
    msg_fmt = 'Quota for project %(project_id)s could not be found.'


class QuotaResourceUnknown(QuotaNotFound):
    msg_fmt = 'Unknown quota resources %(unknown)s.'


class InvalidQuotaValue(Invalid):
    msg_fmt = ('Change would make usage less than 0 for the following '
               'resources: %(unders)s')


# -- Instances and their states ---------------------------------------------

class InstanceNotFound(NotFound):
    msg_fmt = 'Instance %(instance_id)s could not be found.'


class InstanceExists(Conflict):
    msg_fmt = 'Instance %(name)s already exists.'


class UnshelveInstanceInvalidState(Conflict):
    msg_fmt = ('Specifying an availability zone or a host when unshelving '
               'server "%(instance_uuid)s" with status "%(state)s" is not '
               'supported. The server status must be SHELVED_OFFLOADED.')


class InstanceInvalidState(Conflict):
    msg_fmt = ('Instance %(instance_uuid)s in %(attr)s %(state)s. Cannot '
               '%(method)s while the instance is in this state.')


class InstanceIsLocked(Conflict):
    msg_fmt = 'Instance %(instance_uuid)s is locked'


class InstanceUpdateConflict(NovaException):
    msg_fmt = 'Conflict updating instance %(instance_uuid)s.'
    code = 409


class UnexpectedTaskStateError(NovaException):
    msg_fmt = ('Unexpected task state: expecting %(expected)s but '
               'the actual state is %(actual)s')
    code = 409


class UnexpectedDeletingTaskStateError(UnexpectedTaskStateError):
    pass


class InstanceNotReady(Conflict):
    msg_fmt = 'Instance %(instance_id)s is not ready'


class ConsoleNotAvailable(NotFound):
    msg_fmt = 'Guest does not have a console available.'


class TriggerCrashDumpNotSupported(Invalid):
    msg_fmt = 'Triggering crash dump is not supported'


class InstanceNotRunning(Invalid):
    msg_fmt = 'Instance %(instance_id)s is not running.'


class InstanceInfoCacheNotFound(NotFound):
    msg_fmt = 'Info cache for instance %(instance_uuid)s could not be found.'


class InstanceActionNotFound(NotFound):
    msg_fmt = ('Action for request_id %(request_id)s on instance'
               ' %(instance_uuid)s not found')


class InstanceActionEventNotFound(NotFound):
    msg_fmt = 'Event %(event)s not found for action id %(action_id)s'


class TagNotFound(NotFound):
    msg_fmt = 'Tag %(tag)s does not exist for instance %(instance_id)s.'


class InstanceFaultRollback(NovaException):
    def __init__(self, inner_exception=None):
        self.inner_exception = inner_exception
        super().__init__('Instance rollback performed due to: %s'
                         % inner_exception)


# -- Key pairs --------------------------------------------------------------

class KeypairNotFound(NotFound):
    msg_fmt = 'Keypair %(name)s not found for user %(user_id)s'


class KeyPairExists(Conflict):
    msg_fmt = "Key pair '%(key_name)s' already exists."


class InvalidKeypair(Invalid):
    msg_fmt = 'Keypair data is invalid: %(reason)s'


class KeypairLimitExceeded(OverQuota):
    msg_fmt = 'Maximum number of key pairs exceeded'


# -- Flavors ----------------------------------------------------------------

class FlavorNotFound(NotFound):
    msg_fmt = 'Flavor %(flavor_id)s could not be found.'


class FlavorNotFoundByName(FlavorNotFound):
    msg_fmt = 'Flavor with name %(flavor_name)s could not be found.'


class FlavorExtraSpecsNotFound(NotFound):
    msg_fmt = ('Flavor %(flavor_id)s has no extra specs with key '
               '%(extra_specs_key)s.')


class FlavorExists(Conflict):
    msg_fmt = 'Flavor with name %(name)s already exists.'


class FlavorIdExists(Conflict):
    msg_fmt = 'Flavor with ID %(flavor_id)s already exists.'


class FlavorAccessExists(Conflict):
    msg_fmt = ('Flavor access already exists for flavor %(flavor_id)s and '
               'project %(project_id)s combination.')


class FlavorAccessNotFound(NotFound):
    msg_fmt = ('Flavor access not found for %(flavor_id)s / %(project_id)s '
               'combination.')


class FlavorDiskTooSmall(Invalid):
    msg_fmt = 'Flavor\'s disk is too small for requested image.'


class FlavorMemoryTooSmall(Invalid):
    msg_fmt = 'Flavor\'s memory is too small for requested image.'


# -- Images (Glance) --------------------------------------------------------

class ImageNotFound(NotFound):
    msg_fmt = 'Image %(image_id)s could not be found.'


class InstanceQuiesceNotSupported(Invalid):
    msg_fmt = 'Quiescing is not supported in instance %(instance_id)s'


class QemuGuestAgentNotEnabled(Invalid):
    msg_fmt = 'QEMU guest agent is not enabled'


class InstanceQuiesceFailed(Invalid):
    msg_fmt = 'Failed to quiesce instance: %(reason)s'
    code = 409


class ImageNotActive(Invalid):
    msg_fmt = 'Image %(image_id)s is not active.'


class ImageUnacceptable(Invalid):
    msg_fmt = 'Image %(image_id)s is unacceptable: %(reason)s'


class ImageNotAuthorized(NovaException):
    msg_fmt = 'Not authorized for image %(image_id)s.'
    code = 403


class ImageBadRequest(Invalid):
    msg_fmt = ('Request of image %(image_id)s got BadRequest response: '
               '%(response)s')


class ImageQuotaExceeded(OverQuota):
    msg_fmt = 'Quota exceeded for image %(image_id)s.'


class ImageServiceUnavailable(NovaException):
    msg_fmt = 'The image service is unavailable: %(reason)s'
    code = 503


# -- Networks and ports (Neutron) -------------------------------------------

class NetworkNotFoundForInstance(Invalid):
    msg_fmt = 'Network could not be found for instance %(instance_id)s.'


class FixedIpNotFoundForSpecificInstance(NotFound):
    msg_fmt = "Instance %(instance_uuid)s doesn't have fixed IP '%(ip)s'."


class NetworkNotFound(NotFound):
    msg_fmt = 'Network %(network_id)s could not be found.'


class NetworkAmbiguous(Invalid):
    msg_fmt = ('Multiple possible networks found, use a Network ID to be '
               'more specific.')


class NetworkRequiresSubnet(Invalid):
    msg_fmt = ('Network %(network_uuid)s requires a subnet in order to boot'
               ' instances on.')


class ExternalNetworkAttachForbidden(Forbidden):
    msg_fmt = ('It is not allowed to create an interface on external network'
               ' %(network_uuid)s')


class UnableToAutoAllocateNetwork(Invalid):
    msg_fmt = ('Unable to automatically allocate a network for project '
               '%(project_id)s')


class NetworkServiceUnavailable(NovaException):
    msg_fmt = 'The network service is unavailable: %(reason)s'
    code = 503


class PortNotFound(NotFound):
    msg_fmt = 'Port id %(port_id)s could not be found.'


class PortInUse(Invalid):
    msg_fmt = 'Port %(port_id)s is still in use.'


class PortNotUsable(Invalid):
    msg_fmt = 'Port %(port_id)s not usable for instance %(instance)s.'


class PortRequiresFixedIP(Invalid):
    msg_fmt = 'Port %(port_id)s requires a FixedIP in order to be used.'


class PortLimitExceeded(OverQuota):
    msg_fmt = 'Maximum number of ports exceeded'


class PortBindingFailed(Invalid):
    msg_fmt = ('Binding failed for port %(port_id)s, please check neutron '
               'logs for more information.')


class PortBindingActivationFailed(NovaException):
    msg_fmt = ('Failed to activate binding for port %(port_id)s on host '
               '%(host)s.')


class PortBindingDeletionFailed(NovaException):
    msg_fmt = ('Failed to delete binding for port(s) %(port_id)s on host '
               '%(host)s.')


class PortUpdateFailed(Invalid):
    msg_fmt = 'Port update failed for port %(port_id)s: %(reason)s'


class NoMoreFixedIps(NovaException):
    msg_fmt = 'No fixed IP addresses available for network: %(net)s'


class FixedIpAlreadyInUse(NovaException):
    msg_fmt = ('Fixed IP address %(address)s is already in use on instance '
               '%(instance_uuid)s.')


class FixedIpInvalidOnHost(Invalid):
    msg_fmt = 'The fixed IP associated with port %(port_id)s is not valid.'


class SecurityGroupNotFound(NotFound):
    msg_fmt = 'Security group %(security_group_id)s not found.'


class VirtualInterfaceCreateException(NovaException):
    msg_fmt = 'Virtual Interface creation failed'


class SecurityGroupCannotBeApplied(Invalid):
    msg_fmt = ('Network requires port_security_enabled and subnet associated'
               ' in order to apply security groups.')


class AttachInterfaceNotSupported(Invalid):
    msg_fmt = ('Attaching interfaces is not supported for instance '
               '%(instance_uuid)s.')


class NetworkInterfaceTaggedAttachNotSupported(Invalid):
    msg_fmt = 'Tagged network interface attach is not supported by this host.'


class InterfaceAttachFailed(Invalid):
    msg_fmt = ('Failed to attach network adapter device to '
               '%(instance_uuid)s')


class InterfaceDetachFailed(Invalid):
    msg_fmt = ('Failed to detach network adapter device from '
               '%(instance_uuid)s')


# -- Volumes and block device mappings (Cinder) -----------------------------

class VolumeNotFound(NotFound):
    msg_fmt = 'Volume %(volume_id)s could not be found.'


class InvalidVolume(Invalid):
    msg_fmt = 'Invalid volume: %(reason)s'


class InvalidVolumeAccessMode(Invalid):
    msg_fmt = 'Invalid access_mode %(access_mode)s for volume.'


class MismatchVolumeAZException(Invalid):
    msg_fmt = ('The availability zone of volume %(volume_id)s (%(volume_az)s)'
               ' does not match the instance\'s (%(instance_az)s).')


class VolumeLimitExceeded(OverQuota):
    msg_fmt = 'Volume resource quota exceeded: %(reason)s'


class VolumeServiceUnavailable(NovaException):
    msg_fmt = 'The volume service is unavailable: %(reason)s'
    code = 503


class CinderConnectionFailed(NovaException):
    msg_fmt = 'Connection to cinder host failed: %(reason)s'


class VolumeAttachmentNotFound(NotFound):
    msg_fmt = 'Volume attachment %(attachment_id)s could not be found.'


class SnapshotNotFound(NotFound):
    msg_fmt = 'Snapshot %(snapshot_id)s could not be found.'


class BlockDeviceMappingNotFound(NotFound):
    msg_fmt = 'No block device mapping with id %(id)s.'


class VolumeBDMNotFound(NotFound):
    msg_fmt = 'No volume Block Device Mapping with id %(volume_id)s.'


class VolumeBDMIsMultiAttach(Invalid):
    msg_fmt = ('Volume %(volume_id)s is attached to more than one server; '
               'give the server to look it up by.')


class InvalidBDM(Invalid):
    msg_fmt = 'Block Device Mapping is Invalid.'


class InvalidBDMVolumeNotBootable(InvalidBDM):
    msg_fmt = 'Block Device %(id)s is not bootable.'


class VolumeAttachFailed(Invalid):
    msg_fmt = 'Volume %(volume_id)s could not be attached. Reason: %(reason)s'


class MultiattachNotSupportedOldMicroversion(Invalid):
    msg_fmt = ('Multiattach volumes are only supported starting with compute '
               'API version 2.60.')


class VolumeTaggedAttachToShelvedNotSupported(Invalid):
    msg_fmt = ('Tagged volume attachment is not supported for '
               'shelved-offloaded instances.')


class RootVolumeDetachNotAllowed(Invalid):
    msg_fmt = 'Cannot detach a root device volume'


class DevicePathInUse(Conflict):
    msg_fmt = 'The supplied device path (%(path)s) is in use.'


class VolumeTaggedAttachNotSupported(Invalid):
    msg_fmt = ('Tagged volume attachment is not supported for this '
               'instance.')


class MultiattachNotSupportedByVirtDriver(Conflict):
    msg_fmt = ('Volume %(volume_id)s has multiattach=True but the virt '
               'driver of this host does not support it.')


# -- Scheduling and building ------------------------------------------------

class NoValidHost(NovaException):
    msg_fmt = 'No valid host was found. %(reason)s'


class ConductorStoppedWhileScheduling(NovaException):
    msg_fmt = 'The conductor stopped while scheduling this server.'


class BuildRequestLost(NovaException):
    msg_fmt = ('No conductor took this server up within %(seconds)d seconds '
               'of its request: the request was lost on its way. Delete the '
               'server and boot it again.')


class BuildLostOnItsWayToCompute(NovaException):
    msg_fmt = ('No compute took this server\'s build up within %(seconds)d '
               'seconds of its scheduling: the request was lost on its way '
               '(a compute or the message broker stopped). Delete the '
               'server and boot it again.')


class MoveLost(NovaException):
    msg_fmt = ('No compute took this server\'s move up within %(seconds)d '
               'seconds of its request: the request was lost on its way (a '
               'conductor, a compute or the message broker stopped). It '
               'stays on %(host)s as it was; ask for the move again.')


class ConductorStoppedWhileMoving(NovaException):
    msg_fmt = ('The conductor stopped while choosing a host for this '
               'server\'s move; it stays on %(host)s as it was. Ask for the '
               'move again.')


class MaxRetriesExceeded(NoValidHost):
    msg_fmt = 'Exceeded maximum number of retries. %(reason)s'


class RescheduledException(NovaException):
    msg_fmt = ('Build of instance %(instance_uuid)s was re-scheduled: '
               '%(reason)s')


class BuildAbortException(NovaException):
    msg_fmt = 'Build of instance %(instance_uuid)s aborted: %(reason)s'


# -- Placement --------------------------------------------------------------

class PlacementAPIConnectFailure(NovaException):
    msg_fmt = ('Unable to communicate with the Placement API: %(reason)s. '
               'Check that Placement is running and [placement] is set.')


class PlacementAPIConflict(NovaException):
    msg_fmt = ('A conflict was encountered attempting to invoke the '
               'placement API at URL %(url)s: %(error)s')


class ResourceProviderNotFound(NotFound):
    msg_fmt = 'No such resource provider %(name_or_uuid)s.'


class ResourceProviderCreationFailed(NovaException):
    msg_fmt = 'Failed to create resource provider %(name)s'


class ResourceProviderRetrievalFailed(NovaException):
    msg_fmt = 'Failed to get resource provider with UUID %(uuid)s'


class ResourceProviderUpdateFailed(NovaException):
    msg_fmt = ('Failed to update resource provider via URL %(url)s: '
               '%(error)s')


class ResourceProviderUpdateConflict(NovaException):
    msg_fmt = ('A conflict was encountered attempting to update resource '
               'provider %(uuid)s (generation %(generation)d): %(error)s')


class ResourceProviderDeletionFailed(NovaException):
    msg_fmt = 'Failed to delete resource provider %(uuid)s'


class ResourceProviderInventoryUpdateFailed(NovaException):
    msg_fmt = ('Failed to update inventory of resource provider %(uuid)s: '
               '%(error)s')


class ResourceProviderSyncFailed(NovaException):
    msg_fmt = ('Failed to synchronize the placement service with resource '
               'provider information supplied by the compute host.')


class ResourceProviderTraitRetrievalFailed(NovaException):
    msg_fmt = 'Failed to get traits for resource provider with UUID %(uuid)s'


class TraitRetrievalFailed(NovaException):
    msg_fmt = 'Failed to get traits %(traits)s from Placement.'


class TraitCreationFailed(NovaException):
    msg_fmt = 'Failed to create trait %(name)s: %(error)s'


class ConsumerAllocationRetrievalFailed(NovaException):
    msg_fmt = ('Failed to retrieve allocations for consumer '
               '%(consumer_uuid)s: %(error)s')


class AllocationUpdateFailed(Conflict):
    msg_fmt = ('Failed to update allocations for consumer %(consumer_uuid)s. '
               'Error: %(error)s')


class AllocationDeleteFailed(Conflict):
    msg_fmt = ('Failed to delete allocations for consumer %(consumer_uuid)s. '
               'Error: %(error)s')


class AllocationMoveFailed(NovaException):
    msg_fmt = ('Failed to move allocations from consumer %(source_consumer)s '
               'to consumer %(target_consumer)s. Error: %(error)s')


class UsagesRetrievalFailed(NovaException):
    msg_fmt = ('Failed to retrieve usages for project %(project_id)s and '
               'user %(user_id)s.')


# -- Migrations -------------------------------------------------------------

class MigrationNotFound(NotFound):
    msg_fmt = 'Migration %(migration_id)s could not be found.'


class MigrationNotFoundByStatus(MigrationNotFound):
    msg_fmt = ('Migration not found for instance %(instance_id)s '
               'with status %(status)s.')


class MigrationNotFoundForInstance(MigrationNotFound):
    msg_fmt = ('Migration %(migration_id)s not found for instance '
               '%(instance_id)s')


class InvalidMigrationState(Invalid):
    msg_fmt = ('Migration %(migration_id)s state of instance '
               '%(instance_uuid)s is %(state)s. Cannot %(method)s while the '
               'migration is in this state.')


class CannotResizeToSameFlavor(Invalid):
    msg_fmt = 'When resizing, instances must change flavor!'


class CannotResizeDisk(Invalid):
    msg_fmt = 'Server disk was unable to be resized because: %(reason)s'


class UnableToMigrateToSelf(Invalid):
    msg_fmt = ('Unable to migrate instance (%(instance_id)s) to current host '
               '(%(host)s).')


class CannotMigrateToSameHost(Invalid):
    msg_fmt = 'Cannot migrate to the host where the server exists.'


class MoveInterrupted(NovaException):
    msg_fmt = ('The compute service of %(host)s restarted while the '
               'instance was %(task_state)s')


class MigrationError(NovaException):
    msg_fmt = 'Migration error: %(reason)s'


class MigrationPreCheckError(MigrationError):
    msg_fmt = 'Migration pre-check error: %(reason)s'


class InvalidHypervisorType(Invalid):
    msg_fmt = 'The supplied hypervisor type of is invalid.'


class InvalidCPUInfo(Invalid):
    msg_fmt = 'Unacceptable CPU info: %(reason)s'


class NoActiveMigrationForInstance(NotFound):
    msg_fmt = 'Active live migration for instance %(instance_id)s not found'


# -- Cells, mappings and build requests -------------------------------------

class CellMappingNotFound(NotFound):
    msg_fmt = 'Cell %(uuid)s has no mapping.'


class CellMappingExists(Conflict):
    msg_fmt = 'A cell named %(name)s already exists.'


class CellMappingAmbiguous(Conflict):
    msg_fmt = 'More than one cell matches %(name)s'


class HostMappingNotFound(NotFound):
    msg_fmt = 'Host %(name)s is not mapped to any cell'


class HostMappingExists(Conflict):
    msg_fmt = 'Host %(name)s is already mapped to a cell.'


class InstanceMappingNotFound(NotFound):
    msg_fmt = 'Instance %(uuid)s has no mapping to a cell.'


class InstanceMappingExists(Conflict):
    msg_fmt = 'Instance %(uuid)s already has a mapping.'


class BuildRequestNotFound(NotFound):
    msg_fmt = 'BuildRequest not found for instance %(uuid)s'


class BuildRequestAlreadyExists(Conflict):
    msg_fmt = 'BuildRequest already exists for instance %(uuid)s'


class RequestSpecNotFound(NotFound):
    msg_fmt = 'RequestSpec not found for instance %(instance_uuid)s'


class RequestSpecExists(Conflict):
    msg_fmt = 'RequestSpec already exists for instance %(instance_uuid)s'


# -- Configuration, databases and objects -----------------------------------

class ConfigNotFound(NovaException):
    msg_fmt = 'Could not find config at %(path)s'


class DBNotConfigured(NovaException):
    msg_fmt = ('%(group)s connection is not set; set [%(group)s] connection '
               'in nova.conf.')


class DBNotAllowed(NovaException):
    msg_fmt = '%(binary)s attempted direct database access which is ' \
              'not allowed by policy'


class InvalidConnectionURL(Invalid):
    msg_fmt = 'Invalid connection URL: %(reason)s'


class DuplicateRecord(NovaException):
    msg_fmt = 'Unable to create duplicate record for %(target)s'


class ObjectActionError(NovaException):
    msg_fmt = 'Object action %(action)s failed because: %(reason)s'


class OrphanedObjectError(NovaException):
    msg_fmt = 'Cannot call %(method)s on orphaned %(objtype)s object'


# -- Services and compute hosts ---------------------------------------------

class ServiceNotFound(NotFound):
    msg_fmt = 'Service %(service_id)s could not be found.'


class ServiceBinaryExists(Conflict):
    msg_fmt = ('Service with host %(host)s binary %(binary)s exists.')


class ServiceTopicExists(Conflict):
    msg_fmt = 'Service with host %(host)s topic %(topic)s exists.'


class ServiceNotUnique(Invalid):
    msg_fmt = 'More than one possible service found.'


class HostBinaryNotFound(NotFound):
    msg_fmt = 'Could not find binary %(binary)s on host %(host)s.'


class ComputeServiceInUse(NovaException):
    msg_fmt = 'Compute service of %(host)s is still in use.'


class ComputeHostNotFound(NotFound):
    msg_fmt = 'Compute host %(host)s could not be found.'


class ComputeHostNotFoundByHostname(NotFound):
    msg_fmt = 'Compute host %(hypervisor_hostname)s could not be found.'


class ComputeHostNotFoundById(NotFound):
    msg_fmt = 'Compute host with id %(compute_id)s could not be found.'


class HostNotFound(NotFound):
    msg_fmt = 'Host %(host)s could not be found.'


class TaskAlreadyRunning(NovaException):
    msg_fmt = 'Task %(task_name)s is already running on host %(host)s'


class TaskNotRunning(NovaException):
    msg_fmt = 'Task %(task_name)s is not running on host %(host)s'


class ComputeServiceUnavailable(NovaException):
    msg_fmt = 'Compute service of %(host)s is unavailable at this time.'


# -- Server groups ----------------------------------------------------------

class InstanceGroupNotFound(NotFound):
    msg_fmt = 'Instance group %(group_uuid)s could not be found.'


class InstanceGroupIdExists(Conflict):
    msg_fmt = 'Instance group %(group_uuid)s already exists.'


class GroupMemberQuotaExceeded(OverQuota):
    msg_fmt = 'Quota exceeded, too many servers in group'


class ServerGroupQuotaExceeded(OverQuota):
    msg_fmt = 'Quota exceeded, too many server groups.'


# -- Host aggregates and availability zones ---------------------------------

class AggregateNotFound(NotFound):
    msg_fmt = 'Aggregate %(aggregate_id)s could not be found.'


class AggregateNameExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_name)s already exists.'


class AggregateHostNotFound(NotFound):
    msg_fmt = ('Aggregate %(aggregate_id)s has no host %(host)s.')


class AggregateHostExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_id)s already has host %(host)s.'


class InvalidAggregateAction(Invalid):
    msg_fmt = ('Unacceptable parameters: Cannot perform action '
               '\'%(action)s\' on aggregate %(aggregate_id)s. Reason: '
               '%(reason)s.')


# -- Compute host resources and virt drivers --------------------------------

class ComputeResourcesUnavailable(NovaException):
    msg_fmt = 'Insufficient compute resources: %(reason)s.'


class HypervisorUnavailable(NovaException):
    msg_fmt = 'Connection to the hypervisor is broken on host %(host)s'


class VirtDriverNotReady(NovaException):
    msg_fmt = 'Virt driver is not ready.'


class InternalError(NovaException):
    msg_fmt = '%(err)s'


class VolumeDriverNotFound(NotFound):
    msg_fmt = 'Could not find a handler for %(driver_type)s volume.'


class DiskNotFound(NotFound):
    msg_fmt = 'No disk at %(location)s'


class DeviceDetachFailed(NovaException):
    msg_fmt = 'Device detach failed for %(device)s: %(reason)s'


class InstancePowerOffFailure(Invalid):
    msg_fmt = 'Failed to power off instance: %(reason)s'


class InstancePowerOnFailure(Invalid):
    msg_fmt = 'Failed to power on instance: %(reason)s'


class InstanceRebootFailure(Invalid):
    msg_fmt = 'Failed to reboot instance: %(reason)s'


class InstanceRecreateNotSupported(Invalid):
    msg_fmt = 'Instance recreate is not supported.'


class PreserveEphemeralNotSupported(Invalid):
    msg_fmt = ('The current driver does not support preserving ephemeral '
               'partitions.')


class InstanceNotRescuable(Invalid):
    msg_fmt = 'Instance %(instance_id)s cannot be rescued: %(reason)s'


class InstanceAgentNotEnabled(Invalid):
    msg_fmt = ('Instance %(instance_id)s has no guest agent to set its '
               'password.')


class InstancePasswordSetFailed(NovaException):
    msg_fmt = 'Failed to set admin password on %(instance)s because %(reason)s'


class SetAdminPasswdNotSupported(Invalid):
    msg_fmt = 'Set admin password is not supported'


class ConsoleTypeInvalid(Invalid):
    msg_fmt = 'Invalid console type %(console_type)s'


class ConsoleTypeUnavailable(Invalid):
    msg_fmt = 'Unavailable console type %(console_type)s.'


class InvalidToken(Invalid):
    msg_fmt = "The token '%(token)s' is invalid or has expired"


class InvalidVirtType(Invalid):
    msg_fmt = ('[libvirt] virt_type=%(virt_type)s cannot work on this host: '
               '%(reason)s')


class InvalidSharedStorage(Invalid):
    msg_fmt = '%(path)s is not on shared storage: %(reason)s'


class InvalidLocalStorage(Invalid):
    msg_fmt = '%(path)s is not on local storage: %(reason)s'
