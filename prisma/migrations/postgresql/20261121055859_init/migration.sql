-- CreateTable
CREATE TABLE "Person" (
    "oid" SERIAL NOT NULL,
    "pid" TEXT NOT NULL,
    "nom" TEXT NOT NULL DEFAULT '',
    "prenom" TEXT NOT NULL DEFAULT '',
    "email" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Person_pkey" PRIMARY KEY ("oid")
);

-- CreateTable
CREATE TABLE "PersonRole" (
    "personOid" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'admin',
    "grantedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PersonRole_pkey" PRIMARY KEY ("personOid","role")
);

-- CreateTable
CREATE TABLE "Group" (
    "oid" SERIAL NOT NULL,
    "nom" TEXT NOT NULL,
    "nomKey" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "ouvert" BOOLEAN NOT NULL DEFAULT false,
    "public" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Group_pkey" PRIMARY KEY ("oid")
);

-- CreateTable
CREATE TABLE "GroupManager" (
    "groupOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "GroupManager_pkey" PRIMARY KEY ("groupOid","personOid")
);

-- CreateTable
CREATE TABLE "GroupMember" (
    "groupOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "joinedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GroupMember_pkey" PRIMARY KEY ("groupOid","personOid")
);

-- CreateTable
CREATE TABLE "GroupFollower" (
    "groupOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "followedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GroupFollower_pkey" PRIMARY KEY ("groupOid","personOid")
);

-- CreateTable
CREATE TABLE "Resource" (
    "oid" SERIAL NOT NULL,
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
    "dateCreation" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dateMiseAJour" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Resource_pkey" PRIMARY KEY ("oid")
);

-- CreateTable
CREATE TABLE "ResourceAuthor" (
    "resourceOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ResourceAuthor_pkey" PRIMARY KEY ("resourceOid","personOid")
);

-- CreateTable
CREATE TABLE "ResourceContributor" (
    "resourceOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ResourceContributor_pkey" PRIMARY KEY ("resourceOid","personOid")
);

-- CreateTable
CREATE TABLE "ResourceParentAuthor" (
    "resourceOid" INTEGER NOT NULL,
    "personOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ResourceParentAuthor_pkey" PRIMARY KEY ("resourceOid","personOid")
);

-- CreateTable
CREATE TABLE "ResourceGroup" (
    "resourceOid" INTEGER NOT NULL,
    "groupOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ResourceGroup_pkey" PRIMARY KEY ("resourceOid","groupOid")
);

-- CreateTable
CREATE TABLE "ResourceAuthorGroup" (
    "resourceOid" INTEGER NOT NULL,
    "groupOid" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ResourceAuthorGroup_pkey" PRIMARY KEY ("resourceOid","groupOid")
);

-- CreateTable
CREATE TABLE "ResourceCategory" (
    "resourceOid" INTEGER NOT NULL,
    "categoryId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ResourceCategory_pkey" PRIMARY KEY ("resourceOid","categoryId")
);

-- CreateTable
CREATE TABLE "ResourceLevel" (
    "resourceOid" INTEGER NOT NULL,
    "level" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ResourceLevel_pkey" PRIMARY KEY ("resourceOid","level")
);

-- CreateTable
CREATE TABLE "ResourcePedagogicType" (
    "resourceOid" INTEGER NOT NULL,
    "typeId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ResourcePedagogicType_pkey" PRIMARY KEY ("resourceOid","typeId")
);

-- CreateTable
CREATE TABLE "ResourceDocumentaryType" (
    "resourceOid" INTEGER NOT NULL,
    "typeId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ResourceDocumentaryType_pkey" PRIMARY KEY ("resourceOid","typeId")
);

-- CreateTable
CREATE TABLE "ResourceRelation" (
    "id" SERIAL NOT NULL,
    "resourceOid" INTEGER NOT NULL,
    "predicate" INTEGER NOT NULL,
    "targetRid" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ResourceRelation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ResourceArchive" (
    "oid" SERIAL NOT NULL,
    "resourceOid" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "snapshot" JSONB NOT NULL,
    "archivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ResourceArchive_pkey" PRIMARY KEY ("oid")
);

-- CreateTable
CREATE TABLE "PeerListener" (
    "id" SERIAL NOT NULL,
    "rid" TEXT NOT NULL,
    "baseId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PeerListener_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OutboxMessage" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "peerBaseId" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),

    CONSTRAINT "OutboxMessage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InboxEvent" (
    "eventId" TEXT NOT NULL,
    "peerBaseId" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InboxEvent_pkey" PRIMARY KEY ("eventId")
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL,
    "sid" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ServiceSetting" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ServiceSetting_pkey" PRIMARY KEY ("key")
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

-- AddForeignKey
ALTER TABLE "PersonRole" ADD CONSTRAINT "PersonRole_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GroupManager" ADD CONSTRAINT "GroupManager_groupOid_fkey" FOREIGN KEY ("groupOid") REFERENCES "Group"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GroupManager" ADD CONSTRAINT "GroupManager_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GroupMember" ADD CONSTRAINT "GroupMember_groupOid_fkey" FOREIGN KEY ("groupOid") REFERENCES "Group"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GroupMember" ADD CONSTRAINT "GroupMember_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GroupFollower" ADD CONSTRAINT "GroupFollower_groupOid_fkey" FOREIGN KEY ("groupOid") REFERENCES "Group"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GroupFollower" ADD CONSTRAINT "GroupFollower_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceAuthor" ADD CONSTRAINT "ResourceAuthor_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceAuthor" ADD CONSTRAINT "ResourceAuthor_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceContributor" ADD CONSTRAINT "ResourceContributor_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceContributor" ADD CONSTRAINT "ResourceContributor_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceParentAuthor" ADD CONSTRAINT "ResourceParentAuthor_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceParentAuthor" ADD CONSTRAINT "ResourceParentAuthor_personOid_fkey" FOREIGN KEY ("personOid") REFERENCES "Person"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceGroup" ADD CONSTRAINT "ResourceGroup_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceGroup" ADD CONSTRAINT "ResourceGroup_groupOid_fkey" FOREIGN KEY ("groupOid") REFERENCES "Group"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceAuthorGroup" ADD CONSTRAINT "ResourceAuthorGroup_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceAuthorGroup" ADD CONSTRAINT "ResourceAuthorGroup_groupOid_fkey" FOREIGN KEY ("groupOid") REFERENCES "Group"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceCategory" ADD CONSTRAINT "ResourceCategory_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceLevel" ADD CONSTRAINT "ResourceLevel_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourcePedagogicType" ADD CONSTRAINT "ResourcePedagogicType_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceDocumentaryType" ADD CONSTRAINT "ResourceDocumentaryType_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceRelation" ADD CONSTRAINT "ResourceRelation_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResourceArchive" ADD CONSTRAINT "ResourceArchive_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;
