-- CreateTable
CREATE TABLE "Person" (
    "oid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "pid" TEXT NOT NULL,
    "nom" TEXT NOT NULL DEFAULT '',
    "prenom" TEXT NOT NULL DEFAULT '',
    "email" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PersonRole" (
    "personOid" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'admin',
    "grantedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("personOid", "role"),
    CONSTRAINT "PersonRole_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Group" (
    "oid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "nom" TEXT NOT NULL,
    "nomKey" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "ouvert" BOOLEAN NOT NULL DEFAULT false,
    "public" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "GroupManager" (
    "groupOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    PRIMARY KEY ("groupOid", "personOid"),
    CONSTRAINT "GroupManager_groupOid_fkey" FOREIGN KEY ("groupOid") REFERENCES "Group" ("oid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "GroupManager_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "GroupMember" (
    "groupOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "joinedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("groupOid", "personOid"),
    CONSTRAINT "GroupMember_groupOid_fkey" FOREIGN KEY ("groupOid") REFERENCES "Group" ("oid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "GroupMember_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "GroupFollower" (
    "groupOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "followedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("groupOid", "personOid"),
    CONSTRAINT "GroupFollower_groupOid_fkey" FOREIGN KEY ("groupOid") REFERENCES "Group" ("oid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "GroupFollower_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Resource" (
    "oid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "origine" TEXT NOT NULL,
    "idOrigine" TEXT NOT NULL,
    "titre" TEXT NOT NULL DEFAULT '',
    "resume" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "commentaires" TEXT NOT NULL DEFAULT '',
    "type" TEXT NOT NULL,
    "langue" TEXT NOT NULL DEFAULT 'fra',
    "publie" BOOLEAN NOT NULL DEFAULT false,
    "restriction" INTEGER NOT NULL DEFAULT 0,
    "indexable" BOOLEAN NOT NULL DEFAULT true,
    "parametres" JSONB,
    "enfants" JSONB,
    "aliasOf" TEXT,
    "cle" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "inc" INTEGER NOT NULL DEFAULT 0,
    "archiveOid" INTEGER,
    "dateCreation" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dateMiseAJour" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ResourceAuthor" (
    "resourceOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    PRIMARY KEY ("resourceOid", "personOid"),
    CONSTRAINT "ResourceAuthor_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ResourceAuthor_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ResourceContributor" (
    "resourceOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    PRIMARY KEY ("resourceOid", "personOid"),
    CONSTRAINT "ResourceContributor_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ResourceContributor_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ResourceParentAuthor" (
    "resourceOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    PRIMARY KEY ("resourceOid", "personOid"),
    CONSTRAINT "ResourceParentAuthor_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ResourceParentAuthor_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ResourceGroup" (
    "resourceOid" INTEGER NOT NULL,
    "groupOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    PRIMARY KEY ("resourceOid", "groupOid"),
    CONSTRAINT "ResourceGroup_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ResourceGroup_groupOid_fkey" FOREIGN KEY ("groupOid") REFERENCES "Group" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ResourceAuthorGroup" (
    "resourceOid" INTEGER NOT NULL,
    "groupOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    PRIMARY KEY ("resourceOid", "groupOid"),
    CONSTRAINT "ResourceAuthorGroup_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ResourceAuthorGroup_groupOid_fkey" FOREIGN KEY ("groupOid") REFERENCES "Group" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ResourceCategory" (
    "resourceOid" INTEGER NOT NULL,
    "categoryId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    PRIMARY KEY ("resourceOid", "categoryId"),
    CONSTRAINT "ResourceCategory_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ResourceLevel" (
    "resourceOid" INTEGER NOT NULL,
    "level" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    PRIMARY KEY ("resourceOid", "level"),
    CONSTRAINT "ResourceLevel_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ResourcePedagogicType" (
    "resourceOid" INTEGER NOT NULL,
    "typeId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    PRIMARY KEY ("resourceOid", "typeId"),
    CONSTRAINT "ResourcePedagogicType_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ResourceDocumentaryType" (
    "resourceOid" INTEGER NOT NULL,
    "typeId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    PRIMARY KEY ("resourceOid", "typeId"),
    CONSTRAINT "ResourceDocumentaryType_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ResourceRelation" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "resourceOid" INTEGER NOT NULL,
    "predicate" INTEGER NOT NULL,
    "targetRid" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    CONSTRAINT "ResourceRelation_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ResourceArchive" (
    "oid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "resourceOid" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "snapshot" JSONB NOT NULL,
    "archivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ResourceArchive_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "PeerListener" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "rid" TEXT NOT NULL,
    "baseId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "OutboxMessage" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "peerBaseId" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" DATETIME
);

-- CreateTable
CREATE TABLE "InboxEvent" (
    "eventId" TEXT NOT NULL PRIMARY KEY,
    "peerBaseId" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sid" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ServiceSetting" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "Person_pid_key" ON "Person"("pid");

-- CreateIndex
CREATE UNIQUE INDEX "Group_nomKey_key" ON "Group"("nomKey");

-- CreateIndex
CREATE INDEX "Group_ouvert_idx" ON "Group"("ouvert");

-- CreateIndex
CREATE INDEX "Group_public_idx" ON "Group"("public");

-- CreateIndex
CREATE INDEX "GroupManager_personOid_idx" ON "GroupManager"("personOid");

-- CreateIndex
CREATE INDEX "GroupMember_personOid_idx" ON "GroupMember"("personOid");

-- CreateIndex
CREATE INDEX "GroupFollower_personOid_idx" ON "GroupFollower"("personOid");

-- CreateIndex
CREATE UNIQUE INDEX "Resource_cle_key" ON "Resource"("cle");

-- CreateIndex
CREATE INDEX "Resource_idOrigine_idx" ON "Resource"("idOrigine");

-- CreateIndex
CREATE INDEX "Resource_type_idx" ON "Resource"("type");

-- CreateIndex
CREATE INDEX "Resource_langue_idx" ON "Resource"("langue");

-- CreateIndex
CREATE INDEX "Resource_publie_restriction_idx" ON "Resource"("publie", "restriction");

-- CreateIndex
CREATE INDEX "Resource_restriction_idx" ON "Resource"("restriction");

-- CreateIndex
CREATE INDEX "Resource_aliasOf_idx" ON "Resource"("aliasOf");

-- CreateIndex
CREATE INDEX "Resource_titre_idx" ON "Resource"("titre");

-- CreateIndex
CREATE INDEX "Resource_dateCreation_idx" ON "Resource"("dateCreation");

-- CreateIndex
CREATE INDEX "Resource_dateMiseAJour_idx" ON "Resource"("dateMiseAJour");

-- CreateIndex
CREATE UNIQUE INDEX "Resource_origine_idOrigine_key" ON "Resource"("origine", "idOrigine");

-- CreateIndex
CREATE INDEX "ResourceAuthor_personOid_resourceOid_idx" ON "ResourceAuthor"("personOid", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourceContributor_personOid_resourceOid_idx" ON "ResourceContributor"("personOid", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourceParentAuthor_personOid_resourceOid_idx" ON "ResourceParentAuthor"("personOid", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourceGroup_groupOid_resourceOid_idx" ON "ResourceGroup"("groupOid", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourceAuthorGroup_groupOid_resourceOid_idx" ON "ResourceAuthorGroup"("groupOid", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourceCategory_categoryId_resourceOid_idx" ON "ResourceCategory"("categoryId", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourceLevel_level_resourceOid_idx" ON "ResourceLevel"("level", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourcePedagogicType_typeId_resourceOid_idx" ON "ResourcePedagogicType"("typeId", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourceDocumentaryType_typeId_resourceOid_idx" ON "ResourceDocumentaryType"("typeId", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourceRelation_targetRid_idx" ON "ResourceRelation"("targetRid");

-- CreateIndex
CREATE UNIQUE INDEX "ResourceRelation_resourceOid_predicate_targetRid_key" ON "ResourceRelation"("resourceOid", "predicate", "targetRid");

-- CreateIndex
CREATE INDEX "ResourceArchive_resourceOid_version_idx" ON "ResourceArchive"("resourceOid", "version");

-- CreateIndex
CREATE INDEX "PeerListener_baseId_idx" ON "PeerListener"("baseId");

-- CreateIndex
CREATE UNIQUE INDEX "PeerListener_rid_baseId_key" ON "PeerListener"("rid", "baseId");

-- CreateIndex
CREATE INDEX "OutboxMessage_status_nextAttemptAt_idx" ON "OutboxMessage"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "OutboxMessage_peerBaseId_status_idx" ON "OutboxMessage"("peerBaseId", "status");

-- CreateIndex
CREATE INDEX "InboxEvent_receivedAt_idx" ON "InboxEvent"("receivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Session_sid_key" ON "Session"("sid");

-- CreateIndex
CREATE INDEX "Session_expiresAt_idx" ON "Session"("expiresAt");
