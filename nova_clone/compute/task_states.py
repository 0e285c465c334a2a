"""Transient states of an instance (the ``task_state`` column).

None means no operation is in progress.  Values match Nova's.
"""

# build
SCHEDULING = 'scheduling'
BLOCK_DEVICE_MAPPING = 'block_device_mapping'
NETWORKING = 'networking'
SPAWNING = 'spawning'

# snapshot / backup
IMAGE_SNAPSHOT = 'image_snapshot'
IMAGE_SNAPSHOT_PENDING = 'image_snapshot_pending'
IMAGE_PENDING_UPLOAD = 'image_pending_upload'
IMAGE_UPLOADING = 'image_uploading'
IMAGE_BACKUP = 'image_backup'

UPDATING_PASSWORD = 'updating_password'

# resize / cold migration
RESIZE_PREP = 'resize_prep'
RESIZE_MIGRATING = 'resize_migrating'
RESIZE_MIGRATED = 'resize_migrated'
RESIZE_FINISH = 'resize_finish'
RESIZE_REVERTING = 'resize_reverting'
RESIZE_CONFIRMING = 'resize_confirming'

# reboot
REBOOTING = 'rebooting'
REBOOT_PENDING = 'reboot_pending'
REBOOT_STARTED = 'reboot_started'
REBOOTING_HARD = 'rebooting_hard'
REBOOT_PENDING_HARD = 'reboot_pending_hard'
REBOOT_STARTED_HARD = 'reboot_started_hard'

PAUSING = 'pausing'
UNPAUSING = 'unpausing'
SUSPENDING = 'suspending'
RESUMING = 'resuming'
POWERING_OFF = 'powering-off'
POWERING_ON = 'powering-on'
RESCUING = 'rescuing'
UNRESCUING = 'unrescuing'

# rebuild
REBUILDING = 'rebuilding'
REBUILD_BLOCK_DEVICE_MAPPING = 'rebuild_block_device_mapping'
REBUILD_SPAWNING = 'rebuild_spawning'

MIGRATING = 'migrating'
DELETING = 'deleting'
SOFT_DELETING = 'soft-deleting'
RESTORING = 'restoring'

# shelve
SHELVING = 'shelving'
SHELVING_IMAGE_PENDING_UPLOAD = 'shelving_image_pending_upload'
SHELVING_IMAGE_UPLOADING = 'shelving_image_uploading'
SHELVING_OFFLOADING = 'shelving_offloading'
UNSHELVING = 'unshelving'

ALL_STATES = (
    SCHEDULING, BLOCK_DEVICE_MAPPING, NETWORKING, SPAWNING,
    IMAGE_SNAPSHOT, IMAGE_SNAPSHOT_PENDING, IMAGE_PENDING_UPLOAD,
    IMAGE_UPLOADING, IMAGE_BACKUP, UPDATING_PASSWORD,
    RESIZE_PREP, RESIZE_MIGRATING, RESIZE_MIGRATED, RESIZE_FINISH,
    RESIZE_REVERTING, RESIZE_CONFIRMING,
    REBOOTING, REBOOT_PENDING, REBOOT_STARTED,
    REBOOTING_HARD, REBOOT_PENDING_HARD, REBOOT_STARTED_HARD,
    PAUSING, UNPAUSING, SUSPENDING, RESUMING, POWERING_OFF, POWERING_ON,
    RESCUING, UNRESCUING, REBUILDING, REBUILD_BLOCK_DEVICE_MAPPING,
    REBUILD_SPAWNING, MIGRATING, DELETING, SOFT_DELETING, RESTORING,
    SHELVING, SHELVING_IMAGE_PENDING_UPLOAD, SHELVING_IMAGE_UPLOADING,
    SHELVING_OFFLOADING, UNSHELVING,
)

# Task states a build passes through; an instance left in one of these on a
# compute restart was interrupted mid-build.
BUILD_STATES = (SCHEDULING, BLOCK_DEVICE_MAPPING, NETWORKING, SPAWNING)

SOFT_REBOOT_STATES = (REBOOTING, REBOOT_PENDING, REBOOT_STARTED)
HARD_REBOOT_STATES = (REBOOTING_HARD, REBOOT_PENDING_HARD,
                      REBOOT_STARTED_HARD)
RESIZE_STATES = (RESIZE_PREP, RESIZE_MIGRATING, RESIZE_MIGRATED,
                 RESIZE_FINISH)
REBUILD_STATES = (REBUILDING, REBUILD_BLOCK_DEVICE_MAPPING, REBUILD_SPAWNING)
